package cli

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/patch"
	"github.com/admitkit/admit/review"
)

// One object's two admissions — under the baseline and under the proposal — compared: what the
// proposal does to it that the baseline does not.

// auditObject is what the proposal newly does to one object's write.
type auditObject struct {
	Source string `json:"source"`
	// Origin is the audit log's event the write replays, with its user and the answer it got.
	Origin      string `json:"origin,omitempty"`
	Operation   string `json:"operation"`
	SubResource string `json:"subresource,omitempty"`
	Kind        string `json:"kind"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name"`
	// Effects lists what is new, worst first: "denied", "failing", "warned", "mutated",
	// "allowed" (the baseline rejects the write, the proposal admits it).
	Effects []string `json:"effects"`
	// Denial is the proposal's rejection of a write the baseline admits.
	Denial *auditDenial `json:"denial,omitempty"`
	// Failures are webhook calls and policy evaluations that newly fail.
	Failures []auditFailure `json:"failures,omitempty"`
	// Patch turns the object the baseline admits into the one the proposal admits (managedFields
	// aside); MutatedBy are the changed steps that patched it.
	Patch     patch.Patch `json:"patch,omitempty"`
	MutatedBy []stepKey   `json:"mutatedBy,omitempty"`
	// Warnings are the warnings the client newly receives.
	Warnings []auditWarning `json:"warnings,omitempty"`
	// BaselineRejection is the baseline's rejection of a write the proposal admits.
	BaselineRejection string `json:"baselineRejection,omitempty"`

	rank int
}

type auditDenial struct {
	// Step is the step that rejected: a webhook, a policy, a built-in plugin, the registry's
	// validation.
	Step    stepKey `json:"step"`
	Code    int32   `json:"code"`
	Reason  string  `json:"reason,omitempty"`
	Message string  `json:"message"`
}

type auditFailure struct {
	Step    stepKey `json:"step"`
	Message string  `json:"message"`
	// Rejected says what the failure policy does: true when it fails the request (Fail), false
	// when the write is admitted without the step (Ignore).
	Rejected bool `json:"rejected"`
}

type auditWarning struct {
	// Steps are the steps that may have sent the warning: one when the warning says which (a
	// policy, PodSecurity) or one changed webhook was called; the changed webhooks called
	// otherwise.
	Steps []stepKey `json:"steps,omitempty"`
	Text  string    `json:"text"`
}

// Effects, worst first; rank orders objects in the report.
const (
	effectDenied  = "denied"
	effectFailing = "failing"
	effectWarned  = "warned"
	effectMutated = "mutated"
	effectAllowed = "allowed"
)

// effectRank orders effects, the worst first.
func effectRank(effect string) int {
	return slices.Index([]string{effectDenied, effectFailing, effectWarned, effectMutated, effectAllowed}, effect)
}

// effectCount is how many effects there are: one list of objects per rank.
const effectCount = 5

// stepOf is a result row's step.
func stepOf(row engine.Row) stepKey {
	return stepKey{Type: row.Type, Configuration: row.Configuration, Name: row.Name}
}

// isCall reports a step whose failure its failure policy decides: a webhook or a policy.
func isCall(k stepKey) bool { return k.Type.IsCall() }

// compareOutcomes compares an object's admission under the baseline with the proposal's; both
// were reviewed (their Err is nil). changed are the steps the proposal adds, changes or removes.
// The object has no effect when Effects is empty.
func compareOutcomes(base, proposed *review.Outcome, changed map[stepKey]string) auditObject {
	o := auditObject{Source: proposed.Source}
	if req := proposed.Request; req != nil {
		o.Operation, o.SubResource, o.Kind, o.Namespace = string(req.Operation), req.SubResource, req.Kind.Kind, req.Namespace
		o.Name = proposed.Name()
		if req.Kind.Kind == "Namespace" && req.Resource.Resource == "namespaces" {
			o.Namespace = ""
		}
	}
	b, p := base.Result, proposed.Result
	baseRows := map[stepKey]map[engine.Outcome]bool{}
	for _, row := range b.Rows {
		k := stepOf(row)
		if baseRows[k] == nil {
			baseRows[k] = map[engine.Outcome]bool{}
		}
		baseRows[k][row.Outcome] = true
	}

	if b.Allowed && !p.Allowed {
		// The first step that rejected is the one whose status the client receives.
		var rejecting *engine.Row
		for i, row := range p.Rows {
			if row.Outcome == engine.OutcomeDenied || row.Outcome == engine.OutcomeError {
				rejecting = &p.Rows[i]
				break
			}
		}
		switch {
		case rejecting != nil && rejecting.Outcome == engine.OutcomeError && isCall(stepOf(*rejecting)):
			o.Failures = append(o.Failures, auditFailure{Step: stepOf(*rejecting), Message: rejecting.Reason, Rejected: true})
		default:
			d := &auditDenial{Message: "rejected"}
			if rejecting != nil {
				d.Step = stepOf(*rejecting)
			}
			if p.Status != nil {
				d.Code, d.Reason, d.Message = p.Status.Code, string(p.Status.Reason), p.Status.Message
			}
			o.Denial = d
		}
	}
	if !b.Allowed && p.Allowed {
		o.BaselineRejection = "rejected"
		if b.Status != nil {
			o.BaselineRejection = b.Status.Message
		}
	}
	// Calls that fail where the baseline's did not: those that failed open, and those that
	// failed the request after another rejection was already counted.
	seen := map[stepKey]bool{}
	for _, f := range o.Failures {
		seen[f.Step] = true
	}
	for _, row := range p.Rows {
		k := stepOf(row)
		if !isCall(k) || seen[k] || baseRows[k][row.Outcome] {
			continue
		}
		switch row.Outcome {
		case engine.OutcomeFailedOpen:
			o.Failures = append(o.Failures, auditFailure{Step: k, Message: row.Reason})
			seen[k] = true
		case engine.OutcomeError:
			if o.Denial == nil || o.Denial.Step != k {
				o.Failures = append(o.Failures, auditFailure{Step: k, Message: row.Reason, Rejected: !p.Allowed})
				seen[k] = true
			}
		}
	}

	if b.Allowed && p.Allowed && len(b.Object) > 0 && len(p.Object) > 0 && string(b.Object) != "null" {
		if ops, err := patch.Diff(b.Object, p.Object); err == nil {
			for _, op := range ops {
				// managedFields record who wrote what, and when: not what the object is.
				if op.Path == "/metadata/managedFields" || strings.HasPrefix(op.Path, "/metadata/managedFields/") {
					continue
				}
				o.Patch = append(o.Patch, op)
			}
		}
		if len(o.Patch) > 0 {
			// The changed steps that patched; else the steps that patch where they did not
			// (a built-in plugin reacting to a change). The registry's preparation follows what
			// changed (a new generation for a new spec): it is not a cause.
			var newly []stepKey
			for _, row := range p.Rows {
				k := stepOf(row)
				if row.Outcome != engine.OutcomePatched || k.Type == engine.TypePreparation || slices.Contains(o.MutatedBy, k) || slices.Contains(newly, k) {
					continue
				}
				switch {
				case changed[k] != "":
					o.MutatedBy = append(o.MutatedBy, k)
				case !baseRows[k][engine.OutcomePatched]:
					newly = append(newly, k)
				}
			}
			if len(o.MutatedBy) == 0 {
				o.MutatedBy = newly
			}
		}
	}

	for _, text := range newWarnings(b.Warnings, p.Warnings) {
		o.Warnings = append(o.Warnings, auditWarning{Steps: warningSteps(text, p.Rows, changed), Text: text})
	}

	// A write rejected by a failing call is failing rather than denied: the call is what to fix.
	if o.Denial != nil {
		o.Effects = append(o.Effects, effectDenied)
	}
	if len(o.Failures) > 0 {
		o.Effects = append(o.Effects, effectFailing)
	}
	if len(o.Warnings) > 0 {
		o.Effects = append(o.Effects, effectWarned)
	}
	if len(o.Patch) > 0 {
		o.Effects = append(o.Effects, effectMutated)
	}
	if o.BaselineRejection != "" {
		o.Effects = append(o.Effects, effectAllowed)
	}
	if len(o.Effects) > 0 {
		o.rank = effectRank(o.Effects[0])
	}
	return o
}

// newWarnings are the warnings of after that before does not have, counted as a multiset: a
// warning the baseline sent once and the proposal twice is new once.
func newWarnings(before, after []string) []string {
	count := map[string]int{}
	for _, w := range before {
		count[w]++
	}
	var out []string
	for _, w := range after {
		if count[w] > 0 {
			count[w]--
			continue
		}
		out = append(out, w)
	}
	return out
}

// policyWarning finds the policy in kube-apiserver's warnings for a policy's Warn action.
var policyWarning = regexp.MustCompile(`\b(Validating|Mutating)AdmissionPolicy '([^']+)'`)

// warningSteps attributes a new warning: to the policy it names; to PodSecurity, whose warnings
// say so; else to the changed webhooks that answered for the object (one, or the several that may
// have sent it).
func warningSteps(text string, rows []engine.Row, changed map[stepKey]string) []stepKey {
	if m := policyWarning.FindStringSubmatch(text); m != nil {
		return []stepKey{policyStep(m[1]+"AdmissionPolicy", m[2])}
	}
	if strings.HasPrefix(text, "would violate PodSecurity") {
		return []stepKey{{Type: engine.TypeAdmissionPlugin, Name: "PodSecurity"}}
	}
	var answered []stepKey
	for _, row := range rows {
		k := stepOf(row)
		switch row.Outcome {
		case engine.OutcomeAllowed, engine.OutcomePatched, engine.OutcomeDenied:
			// A webhook that answered; a call that failed sent no warning.
			if k.Type.IsWebhook() && changed[k] != "" && !slices.Contains(answered, k) {
				answered = append(answered, k)
			}
		}
	}
	return answered
}

// auditStep is what one step newly does across the objects: changed steps, and any other step
// that newly denies or fails (a built-in plugin refusing what a changed webhook wrote).
type auditStep struct {
	stepKey
	// Change is "added", "changed" or "removed" for a step the proposal changes.
	Change string `json:"change,omitempty"`
	// Matched counts the objects the step was called for (changed steps only).
	Matched int `json:"matched"`
	Denied  int `json:"denied"`
	Failed  int `json:"failed"`
	Mutated int `json:"mutated"`
	Warned  int `json:"warned"`
}

func (s *auditStep) bad() int { return s.Denied + s.Failed }

// auditNamespace is what the proposal newly does in one namespace ("" for cluster-scoped
// objects).
type auditNamespace struct {
	Namespace string `json:"namespace"`
	Audited   int    `json:"audited"`
	Denied    int    `json:"denied"`
	Failing   int    `json:"failing"`
	Mutated   int    `json:"mutated"`
	Warned    int    `json:"warned"`
}

func (n *auditNamespace) bad() int { return n.Denied + n.Failing }

// auditTotals count the run.
type auditTotals struct {
	// Read counts the objects (or the audit log's events) read.
	Read int `json:"read"`
	// Audited counts the writes admitted under both configurations; Unaffected those no changed
	// step can match, admitted alike by both and so not admitted at all; Skipped what is not a
	// write to audit (configurations and policies in a dump, which are never sent to webhooks;
	// an audit log's events that cannot be replayed).
	Audited    int `json:"audited"`
	Unaffected int `json:"unaffected"`
	Skipped    int `json:"skipped"`
	// The objects with each new effect.
	NewlyDenied  int `json:"newlyDenied"`
	NewlyFailing int `json:"newlyFailing"`
	NewlyMutated int `json:"newlyMutated"`
	NewlyWarned  int `json:"newlyWarned"`
	NewlyAllowed int `json:"newlyAllowed"`
	// Unreviewed counts the writes that could not be admitted (an unknown kind, an invalid
	// object); Unreviewed in the report says why.
	Unreviewed int `json:"unreviewed"`
}

// unreviewedGroup is one reason writes could not be reviewed, with how many and the first.
type unreviewedGroup struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	First  string `json:"first"`
}

// tally accumulates a run's comparisons: totals, steps, namespaces, and the objects with an
// effect, at most limit of them kept (the worst first, then in input order).
type tally struct {
	limit      int
	totals     auditTotals
	steps      map[stepKey]*auditStep
	namespaces map[string]*auditNamespace
	// byRank keeps, per rank, the first limit objects: the report lists the worst limit.
	byRank     [][]auditObject
	found      int
	unreviewed map[string]*unreviewedGroup
	order      []string
}

func newTally(limit int, changed []change) *tally {
	t := &tally{limit: limit, steps: map[stepKey]*auditStep{}, namespaces: map[string]*auditNamespace{},
		byRank: make([][]auditObject, effectCount), unreviewed: map[string]*unreviewedGroup{}}
	for _, c := range changed {
		t.steps[c.step] = &auditStep{stepKey: c.step, Change: c.what}
	}
	return t
}

func (t *tally) step(k stepKey) *auditStep {
	s, ok := t.steps[k]
	if !ok {
		s = &auditStep{stepKey: k}
		t.steps[k] = s
	}
	return s
}

// add counts one object's comparison; rows are the admissions' steps, to count which changed
// steps were called.
func (t *tally) add(o auditObject, base, proposed *engine.Result) {
	t.totals.Audited++
	ns := t.namespaces[o.Namespace]
	if ns == nil {
		ns = &auditNamespace{Namespace: o.Namespace}
		t.namespaces[o.Namespace] = ns
	}
	ns.Audited++
	called := map[stepKey]bool{}
	count := func(rows []engine.Row, removed bool) {
		for _, row := range rows {
			k := stepOf(row)
			s, changed := t.steps[k]
			if !changed || called[k] || (s.Change == "removed") != removed {
				continue
			}
			if row.Outcome != engine.OutcomeSkipped && row.Outcome != engine.OutcomeInert {
				called[k] = true
				s.Matched++
			}
		}
	}
	count(proposed.Rows, false)
	count(base.Rows, true)
	if len(o.Effects) == 0 {
		return
	}
	for _, e := range o.Effects {
		switch e {
		case effectDenied:
			t.totals.NewlyDenied++
			ns.Denied++
			t.step(o.Denial.Step).Denied++
		case effectFailing:
			t.totals.NewlyFailing++
			ns.Failing++
			for _, f := range o.Failures {
				t.step(f.Step).Failed++
			}
		case effectWarned:
			t.totals.NewlyWarned++
			ns.Warned++
			// A step counts the warnings that are surely its own.
			counted := map[stepKey]bool{}
			for _, w := range o.Warnings {
				if len(w.Steps) == 1 && !counted[w.Steps[0]] {
					counted[w.Steps[0]] = true
					t.step(w.Steps[0]).Warned++
				}
			}
		case effectMutated:
			t.totals.NewlyMutated++
			ns.Mutated++
			for _, k := range o.MutatedBy {
				t.step(k).Mutated++
			}
		case effectAllowed:
			t.totals.NewlyAllowed++
		}
	}
	t.found++
	if len(t.byRank[o.rank]) < t.limit {
		t.byRank[o.rank] = append(t.byRank[o.rank], o)
	}
}

// addUnreviewed counts a write that could not be reviewed, grouped by why.
func (t *tally) addUnreviewed(source string, err error) {
	t.totals.Unreviewed++
	reason := strings.TrimPrefix(errorText(err), source+": ")
	g, ok := t.unreviewed[reason]
	if !ok {
		g = &unreviewedGroup{Reason: reason, First: source}
		t.unreviewed[reason] = g
		t.order = append(t.order, reason)
	}
	g.Count++
}

// objects are the objects kept, worst first, at most limit; omitted counts the others.
func (t *tally) objects() (listed []auditObject, omitted int) {
	for _, rank := range t.byRank {
		for _, o := range rank {
			if len(listed) == t.limit {
				break
			}
			listed = append(listed, o)
		}
	}
	return listed, t.found - len(listed)
}

// sortedSteps are the steps, the worst first: most new denials and failures, then warnings,
// mutations, matches; changed steps before others at equal counts.
func (t *tally) sortedSteps() []auditStep {
	return sortedValues(t.steps, func(a, b auditStep) int {
		return cmp.Or(cmp.Compare(b.bad(), a.bad()), cmp.Compare(b.Warned, a.Warned), cmp.Compare(b.Mutated, a.Mutated),
			cmp.Compare(b.Matched, a.Matched), cmp.Compare(boolRank(a.Change == ""), boolRank(b.Change == "")),
			strings.Compare(a.String(), b.String()))
	})
}

// sortedValues are the values m points to, in the order compare gives.
func sortedValues[K comparable, V any](m map[K]*V, compare func(a, b V) int) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	slices.SortFunc(out, compare)
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sortedNamespaces are the namespaces, the worst first.
func (t *tally) sortedNamespaces() []auditNamespace {
	return sortedValues(t.namespaces, func(a, b auditNamespace) int {
		return cmp.Or(cmp.Compare(b.bad(), a.bad()), cmp.Compare(b.Warned, a.Warned), cmp.Compare(b.Mutated, a.Mutated),
			cmp.Compare(b.Audited, a.Audited), strings.Compare(a.Namespace, b.Namespace))
	})
}

// unreviewedGroups are the reasons writes could not be reviewed, the most frequent first.
func (t *tally) unreviewedGroups() []unreviewedGroup {
	out := make([]unreviewedGroup, 0, len(t.order))
	for _, r := range t.order {
		out = append(out, *t.unreviewed[r])
	}
	slices.SortStableFunc(out, func(a, b unreviewedGroup) int { return cmp.Compare(b.Count, a.Count) })
	return out
}
