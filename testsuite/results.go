package testsuite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/admitkit/admit/internal/structured"
)

// Results are the reports of several test files and their counts: what `admit test` prints,
// as JSON and YAML too (WriteStructured). Close removes the reports' temporary files.
type Results struct {
	Suites []*Report
	Passed int
	Failed int
	Errors int
	// Coverage adds up the files' coverage, with Options.Coverage.
	Coverage *Coverage
}

// resultsJSON is Results' JSON: written with each report's encoding, read with Reports.
type resultsJSON[S any] struct {
	Suites   []S       `json:"suites"`
	Passed   int       `json:"passed"`
	Failed   int       `json:"failed"`
	Errors   int       `json:"errors"`
	Coverage *Coverage `json:"coverage,omitempty"`
}

// MarshalJSON encodes the results with every case report, read back whole: WriteStructured
// writes the same bytes a case at a time.
func (r *Results) MarshalJSON() ([]byte, error) {
	out := r.json()
	for i, s := range r.Suites {
		cases, err := s.Cases()
		if err != nil {
			return nil, err
		}
		out.Suites[i] = s.json(cases)
	}
	return structured.Compact(out)
}

// UnmarshalJSON reads results as MarshalJSON (and `admit test -o json`) writes them.
func (r *Results) UnmarshalJSON(b []byte) error {
	var in resultsJSON[*Report]
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Results{Suites: in.Suites, Passed: in.Passed, Failed: in.Failed, Errors: in.Errors, Coverage: in.Coverage}
	return nil
}

// json is the results with each report's cases left to be set.
func (r *Results) json() resultsJSON[reportJSON] {
	out := resultsJSON[reportJSON]{Passed: r.Passed, Failed: r.Failed, Errors: r.Errors, Coverage: r.Coverage}
	if r.Suites != nil {
		out.Suites = make([]reportJSON, len(r.Suites))
	}
	return out
}

// Close removes the temporary files of the reports' cases.
func (r *Results) Close() error {
	var errs []error
	for _, s := range r.Suites {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// RunFiles runs each file (RunFile) and adds up their reports. With Options.Filter, a run in
// which the filter selects no case of any file, and no file failed to run, is a
// NoCaseSelectedError along with the Results: "0 cases, 0 failed" would pass a CI job whose
// pattern has a typo.
func RunFiles(ctx context.Context, files []string, opts Options) (*Results, error) {
	r := &Results{}
	selected := 0
	var coverages []*Coverage
	for _, file := range files {
		s := RunFile(ctx, file, opts)
		r.Suites = append(r.Suites, s)
		selected += s.NumCases()
		passed, failed, errs := s.Counts()
		r.Passed, r.Failed, r.Errors = r.Passed+passed, r.Failed+failed, r.Errors+errs
		coverages = append(coverages, s.Coverage)
	}
	r.Coverage = MergeCoverage(coverages...)
	if opts.Filter != nil && selected == 0 && r.Errors == 0 {
		return r, &NoCaseSelectedError{Pattern: opts.Filter.String(), Suites: r.Suites}
	}
	return r, nil
}

// NoCaseSelectedError says that Options.Filter selects no case, and which cases there are.
type NoCaseSelectedError struct {
	Pattern string
	Suites  []*Report
}

func (e *NoCaseSelectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q selects no case; the cases are:", e.Pattern)
	for _, s := range e.Suites {
		quoted := make([]string, len(s.Names))
		for i, n := range s.Names {
			quoted[i] = strconv.Quote(n)
		}
		fmt.Fprintf(&b, "\n  %s: %s", s.File, strings.Join(quoted, ", "))
	}
	return b.String()
}
