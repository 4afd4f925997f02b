package testsuite

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Results are the reports of several test files and their counts: what `admit test` prints,
// as JSON and YAML too.
type Results struct {
	Suites []*Report `json:"suites"`
	Passed int       `json:"passed"`
	Failed int       `json:"failed"`
	Errors int       `json:"errors"`
	// Coverage adds up the files' coverage, with Options.Coverage.
	Coverage *Coverage `json:"coverage,omitempty"`
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
		selected += len(s.Cases)
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
