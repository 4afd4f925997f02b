package audit

import (
	"fmt"
	"time"

	"github.com/admitkit/admit/audit/policyreport"
	"github.com/admitkit/admit/internal/words"
)

// A report's apiVersion and kind.
const (
	reportAPIVersion = "admit.dev/v1alpha1"
	reportKind       = "AuditReport"
)

// Report is what an audit found: its -o json and yaml output, what the text, JUnit and HTML
// renderings show.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Source is what was audited: the dump's files, the audit log, the cluster's address.
	Source string `json:"source"`
	// Operation is how a dump's or a cluster's objects were written (an audit log's writes have
	// their own).
	Operation string `json:"operation,omitempty"`
	// Namespace is the one namespace audited (Options.Namespace), "" for all.
	Namespace string `json:"namespace,omitempty"`
	Baseline  string `json:"baseline"`
	Proposal  string `json:"proposal"`
	// Time is the run's one moment, at which both configurations admitted every write
	// (Options.Config.Now).
	Time time.Time `json:"time"`
	// Complete is false when the audit was interrupted: the counts are what was audited.
	Complete bool `json:"complete"`
	// Changes are the webhooks and policies the proposal adds, changes or removes.
	Changes []Change `json:"changes"`
	Totals  Totals   `json:"totals"`
	// Steps and Namespaces are the worst first.
	Steps      []StepCount      `json:"steps"`
	Namespaces []NamespaceCount `json:"namespaces"`
	// Objects are the writes with a new effect, the worst first, at most Options.Limit of them;
	// OmittedObjects counts the others.
	Objects        []Finding    `json:"objects"`
	OmittedObjects int          `json:"omittedObjects,omitempty"`
	Unreviewed     []Unreviewed `json:"unreviewed,omitempty"`
	// RefusedByBoth are the writes the baseline and the proposal both refuse, by the step that
	// refused them under the baseline, the most first: what the proposal does to them is
	// unknown, since admission stops before it (an object whose ServiceAccount the dump lacks,
	// a policy's parameters not given).
	RefusedByBoth []Unreviewed `json:"refusedByBoth,omitempty"`
	// Exceeded are the thresholds the counts exceed (Check): why the audit fails.
	Exceeded        []string `json:"exceeded,omitempty"`
	Notes           []string `json:"notes,omitempty"`
	DurationSeconds float64  `json:"durationSeconds"`
	// Shard is set in the report of a shard (Options.Shard): what Merge reads besides.
	Shard *ShardPart `json:"shard,omitempty"`
}

// StepCount is what one step newly does across the writes: changed steps, and any other step
// that newly denies or fails (a built-in plugin refusing what a changed webhook wrote).
type StepCount struct {
	Step
	// Change is "added", "changed" or "removed" for a step the proposal changes.
	Change string `json:"change,omitempty"`
	// Matched counts the writes the step was called for (changed steps only).
	Matched int `json:"matched"`
	Denied  int `json:"denied"`
	Failed  int `json:"failed"`
	Mutated int `json:"mutated"`
	Warned  int `json:"warned"`
}

// Bad counts the writes the step newly denies or fails.
func (s *StepCount) Bad() int { return s.Denied + s.Failed }

// NamespaceCount is what the proposal newly does in one namespace ("" for cluster-scoped
// objects).
type NamespaceCount struct {
	Namespace string `json:"namespace"`
	Audited   int    `json:"audited"`
	Denied    int    `json:"denied"`
	Failing   int    `json:"failing"`
	Mutated   int    `json:"mutated"`
	Warned    int    `json:"warned"`
	// Results count the namespace's Policy Report results by status, whole: those of every
	// write with a new effect, listed or not (PolicyReports).
	Results policyreport.Summary `json:"results"`
}

// Bad counts the namespace's writes the proposal newly denies or fails.
func (n *NamespaceCount) Bad() int { return n.Denied + n.Failing }

// Totals count the run.
type Totals struct {
	// Read counts the objects (or the audit log's events) read.
	Read int `json:"read"`
	// Audited counts the writes admitted under both configurations; Unaffected those no changed
	// step can match, admitted alike by both and so not admitted at all; Skipped what is not a
	// write to audit (configurations and policies in a dump, which are never sent to webhooks;
	// an audit log's events that cannot be replayed).
	Audited    int `json:"audited"`
	Unaffected int `json:"unaffected"`
	Skipped    int `json:"skipped"`
	// The writes with each new effect.
	NewlyDenied  int `json:"newlyDenied"`
	NewlyFailing int `json:"newlyFailing"`
	NewlyMutated int `json:"newlyMutated"`
	NewlyWarned  int `json:"newlyWarned"`
	NewlyAllowed int `json:"newlyAllowed"`
	// Unreviewed counts the writes that could not be admitted (an unknown kind, an invalid
	// object); Report.Unreviewed says why.
	Unreviewed int `json:"unreviewed"`
	// RefusedByBoth counts the writes both configurations refuse; Report.RefusedByBoth says why.
	RefusedByBoth int `json:"refusedByBoth"`
}

// Unreviewed is one reason writes could not be reviewed, with how many and the first.
type Unreviewed struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	First  string `json:"first"`
}

// Thresholds are how many writes of each kind of new effect a rollout accepts; -1 is no limit.
type Thresholds struct {
	NewDenials, NewFailures, NewWarnings, NewMutations int
	// Unreviewed is how many writes may go unreviewed; beyond it the input, not the proposal, is
	// at fault.
	Unreviewed int
	// RefusedShare is the share of the audited writes (0 to 1) that both configurations may
	// refuse; beyond it the audit says too little of the proposal to pass (-1: no limit).
	RefusedShare float64
}

// DefaultRefusedShare is the share of audited writes refused under both configurations beyond
// which an audit does not pass: a quarter of the writes whose answer under the proposal is
// unknown is an input that lacks what admission reads, not a cluster to roll out to.
const DefaultRefusedShare = 0.25

// DefaultThresholds fail on any new denial or failure, on any write not reviewed and on more
// than DefaultRefusedShare of the writes refused by both, and take any number of new warnings
// and mutations.
func DefaultThresholds() Thresholds {
	return Thresholds{NewDenials: 0, NewFailures: 0, NewWarnings: -1, NewMutations: -1, Unreviewed: 0, RefusedShare: DefaultRefusedShare}
}

// Verdict is what a report says of a rollout under thresholds.
type Verdict int

const (
	// Pass: nothing new beyond the thresholds, every write reviewed, the audit complete.
	Pass Verdict = iota
	// Fail: a count of new effects is beyond its threshold.
	Fail
	// BadInput: more writes than allowed could not be reviewed.
	BadInput
	// Interrupted: nothing else is wrong, but the audit did not finish.
	Interrupted
)

// Check sets Exceeded to the thresholds the report's counts exceed, and says what that makes of
// the rollout.
func (r *Report) Check(t Thresholds) Verdict {
	r.Exceeded = nil
	verdict := Pass
	check := func(one, many string, n, max int) {
		if max >= 0 && n > max {
			r.Exceeded = append(r.Exceeded, fmt.Sprintf("%s (more than %d)", words.Plural(n, one, many), max))
			verdict = Fail
		}
	}
	tot := r.Totals
	check("newly denied write", "newly denied writes", tot.NewlyDenied, t.NewDenials)
	check("write with newly failing calls", "writes with newly failing calls", tot.NewlyFailing, t.NewFailures)
	check("newly warned write", "newly warned writes", tot.NewlyWarned, t.NewWarnings)
	check("newly mutated object", "newly mutated objects", tot.NewlyMutated, t.NewMutations)
	if tot.Unreviewed > t.Unreviewed {
		r.Exceeded = append(r.Exceeded, fmt.Sprintf("%s could not be reviewed (more than %d, --max-unreviewed)", words.Plural(tot.Unreviewed, "write", "writes"), t.Unreviewed))
		verdict = BadInput
	}
	if share := r.refusedShare(); t.RefusedShare >= 0 && share > t.RefusedShare {
		r.Exceeded = append(r.Exceeded, fmt.Sprintf("%d of %s (%.0f%%) are refused under both the baseline and the proposal, so what the proposal does to them is unknown (more than %.0f%%, --max-refused-share): give the state they need (--cluster)",
			tot.RefusedByBoth, words.Plural(tot.Audited, "audited write", "audited writes"), 100*share, 100*t.RefusedShare))
		verdict = BadInput
	}
	if verdict == Pass && !r.Complete {
		verdict = Interrupted
	}
	return verdict
}

// refusedShare is the share of the audited writes both configurations refuse.
func (r *Report) refusedShare() float64 {
	if r.Totals.Audited == 0 {
		return 0
	}
	return float64(r.Totals.RefusedByBoth) / float64(r.Totals.Audited)
}
