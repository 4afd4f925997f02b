package testsuite

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Report is what running a test file found: each case's report, or why the file could not run.
type Report struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Error is why the file could not run at all; its cases then did not run.
	Error   string        `json:"error,omitempty"`
	Cases   []*CaseReport `json:"cases"`
	Updated bool          `json:"updated,omitempty"`
	// Coverage is what the cases exercised of the file's webhooks and policies, with
	// Options.Coverage.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Names are the names of every case of the file, selected or not.
	Names []string `json:"-"`
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
	for _, c := range r.Cases {
		switch {
		case c.Error != "":
			errors++
		case c.Passed:
			passed++
		default:
			failed++
		}
	}
	return passed, failed, errors
}
