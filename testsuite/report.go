package testsuite

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/internal/structured"
)

// Report is what running a test file found: each case's report, or why the file could not run.
// Its case reports are read with EachCase (or Cases): a file of many cases keeps them in a
// temporary file, which Close removes.
type Report struct {
	Name string
	File string
	// Error is why the file could not run at all; its cases then did not run.
	Error   string
	Updated bool
	// Coverage is what the cases exercised of the file's webhooks and policies, with
	// Options.Coverage.
	Coverage *Coverage
	// Names are the names of every case of the file, selected or not.
	Names []string

	// cases are the case reports; nil when no case ran.
	cases *caseLog
}

// reportJSON is a Report's JSON: its case reports are a field among the others. Cases is
// whatever encodes the list (see WriteStructured).
type reportJSON struct {
	Name     string    `json:"name"`
	File     string    `json:"file"`
	Error    string    `json:"error,omitempty"`
	Cases    any       `json:"cases"`
	Updated  bool      `json:"updated,omitempty"`
	Coverage *Coverage `json:"coverage,omitempty"`
}

// MarshalJSON encodes the report with its case reports, read back whole: for a file of
// thousands of cases, WriteStructured writes the same bytes a case at a time.
func (r *Report) MarshalJSON() ([]byte, error) {
	cases, err := r.Cases()
	if err != nil {
		return nil, err
	}
	return structured.Compact(r.json(cases))
}

func (r *Report) json(cases any) reportJSON {
	if r.cases == nil {
		cases = nil // no case ran: null, as before any was run
	}
	return reportJSON{Name: r.Name, File: r.File, Error: r.Error, Cases: cases, Updated: r.Updated, Coverage: r.Coverage}
}

// UnmarshalJSON reads a report as MarshalJSON writes it; each case's Took is its
// DurationSeconds.
func (r *Report) UnmarshalJSON(b []byte) error {
	var in struct {
		reportJSON
		Cases []*CaseReport `json:"cases"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	for _, cr := range in.Cases {
		cr.Took = time.Duration(cr.DurationSeconds * float64(time.Second))
	}
	*r = *NewReport(in.Name, in.File, in.Cases)
	r.Error, r.Updated, r.Coverage = in.Error, in.Updated, in.Coverage
	return nil
}

// EachCase calls fn with each case's report, in the file's order; it stops at fn's first error.
func (r *Report) EachCase(fn func(*CaseReport) error) error {
	if r.cases == nil {
		return nil
	}
	return r.cases.each(fn)
}

// Cases are the case reports, read back whole. A nil list means that no case ran.
func (r *Report) Cases() ([]*CaseReport, error) {
	if r.cases == nil {
		return nil, nil
	}
	out := make([]*CaseReport, 0, r.cases.n)
	err := r.EachCase(func(cr *CaseReport) error {
		out = append(out, cr)
		return nil
	})
	return out, err
}

// NumCases is how many cases ran (or were selected and could not run).
func (r *Report) NumCases() int {
	if r.cases == nil {
		return 0
	}
	return r.cases.n
}

// Close removes the temporary file that holds the case reports of a file of many cases; the
// report has no cases after.
func (r *Report) Close() error {
	err := r.cases.close()
	r.cases = nil
	return err
}

// NewReport is a report of cases already decided, for writing with this package's writers
// (WriteText, WriteMarkdown, ...): a report made elsewhere, or one of a test. Nil cases means
// that none ran.
func NewReport(name, file string, cases []*CaseReport) *Report {
	r := &Report{Name: name, File: file}
	if cases == nil {
		return r
	}
	r.cases = newCaseLog(len(cases))
	for _, cr := range cases {
		_ = r.cases.add(cr) // held: adding cannot fail
	}
	return r
}

// CaseReport is one case's outcome: passed, failed (Failures say how), or could not run (Error
// says why); and what happened, for a reader of the report.
type CaseReport struct {
	Name            string   `json:"name"`
	Line            int      `json:"line"`
	Passed          bool     `json:"passed"`
	Failures        []string `json:"failures,omitempty"`
	Error           string   `json:"error,omitempty"`
	Updated         bool     `json:"updated,omitempty"`
	DurationSeconds float64  `json:"durationSeconds"`
	// What happened.
	Allowed          *bool             `json:"allowed,omitempty"`
	Status           *metav1.Status    `json:"status,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	Called           []string          `json:"called,omitempty"`
	// Webhooks are the webhooks and policies configured, each with its outcome: "skipped"
	// ones were not called (they do not match the object), which Called does not list.
	Webhooks []Row `json:"webhooks,omitempty"`
	// Took is how long the case's admission took.
	Took time.Duration `json:"-"`
}

// Counts are how many cases passed, failed and could not run (a file that could not run counts
// as one of those).
func (r *Report) Counts() (passed, failed, errors int) {
	if r.Error != "" {
		errors++
	}
	if r.cases == nil {
		return 0, 0, errors
	}
	return r.cases.passes, r.cases.fails, errors + r.cases.errored
}
