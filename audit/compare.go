package audit

import (
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/patch"
	"github.com/admitkit/admit/review"
)

// One write's two admissions — under the baseline and under the proposal — compared: what the
// proposal does to it that the baseline does not.

// Effect is something the proposal newly does to a write.
type Effect string

// Effects, worst first.
const (
	EffectDenied  Effect = "denied"  // the proposal rejects a write the baseline admits
	EffectFailing Effect = "failing" // a webhook call or a policy evaluation newly fails
	EffectWarned  Effect = "warned"  // the client newly receives a warning
	EffectMutated Effect = "mutated" // the object is stored otherwise
	EffectAllowed Effect = "allowed" // the baseline rejects the write, the proposal admits it
)

// effects are the effects worst first: a Finding's rank is its first effect's place here.
func effects() []Effect {
	return []Effect{EffectDenied, EffectFailing, EffectWarned, EffectMutated, EffectAllowed}
}

// Finding is what the proposal newly does to one write.
type Finding struct {
	Source string `json:"source"`
	// Origin is the audit log's event the write replays, with its user and the answer it got.
	Origin      string `json:"origin,omitempty"`
	Operation   string `json:"operation"`
	SubResource string `json:"subresource,omitempty"`
	// APIVersion and Kind are the written object's, as the request names them; UID is its uid
	// as the source shows it (none for a creation).
	APIVersion string    `json:"apiVersion,omitempty"`
	Kind       string    `json:"kind"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name"`
	UID        types.UID `json:"uid,omitempty"`
	// Effects lists what is new, worst first.
	Effects []Effect `json:"effects"`
	// Denial is the proposal's rejection of a write the baseline admits.
	Denial *Denial `json:"denial,omitempty"`
	// Failures are webhook calls and policy evaluations that newly fail.
	Failures []Failure `json:"failures,omitempty"`
	// Patch turns the object the baseline admits into the one the proposal admits (managedFields
	// aside); MutatedBy are the steps that patched it.
	Patch     patch.Patch `json:"patch,omitempty"`
	MutatedBy []Step      `json:"mutatedBy,omitempty"`
	// Warnings are the warnings the client newly receives.
	Warnings []Warning `json:"warnings,omitempty"`
	// BaselineRejection is the baseline's rejection of a write the proposal admits;
	// BaselineRejectedBy the step that rejected it, when one did.
	BaselineRejection  string `json:"baselineRejection,omitempty"`
	BaselineRejectedBy *Step  `json:"baselineRejectedBy,omitempty"`
}

// Denial is the proposal's rejection: the step that rejected (a webhook, a policy, a built-in
// plugin, the registry's validation) and the status the client receives.
type Denial struct {
	Step    Step   `json:"step"`
	Code    int32  `json:"code"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
}

// Failure is a webhook call or policy evaluation that newly fails.
type Failure struct {
	Step    Step   `json:"step"`
	Message string `json:"message"`
	// Rejected says what the failure policy does: true when it fails the request (Fail), false
	// when the write is admitted without the step (Ignore).
	Rejected bool `json:"rejected"`
}

// Warning is a warning the client newly receives.
type Warning struct {
	// Steps are the steps that may have sent the warning: one when the warning says which (a
	// policy, PodSecurity) or one changed webhook was called; the changed webhooks called
	// otherwise.
	Steps []Step `json:"steps,omitempty"`
	Text  string `json:"text"`
}

// rank orders findings in the report, the worst first.
func (f *Finding) rank() int {
	if len(f.Effects) == 0 {
		return len(effects())
	}
	return slices.Index(effects(), f.Effects[0])
}

// Compare compares a write's admission under the baseline with the proposal's; both were
// reviewed (their Err is nil). changed are the steps the proposal adds, changes or removes,
// with what it does to each. The write has no new effect when the Finding's Effects is empty.
func Compare(base, proposed *review.Outcome, changed map[Step]string) Finding {
	f := Finding{Source: proposed.Source}
	if req := proposed.Request; req != nil {
		f.Operation, f.SubResource, f.Kind, f.Namespace = string(req.Operation), req.SubResource, req.Kind.Kind, req.Namespace
		f.APIVersion, f.Name = req.Kind.GroupVersion().String(), proposed.Name()
		if req.Kind.Kind == "Namespace" && req.Resource.Resource == "namespaces" {
			f.Namespace = ""
		}
	}
	if proposed.Object != nil {
		f.UID = proposed.Object.GetUID()
	}
	b, p := base.Result, proposed.Result
	baseRows := rowOutcomes(b.Rows)
	if b.Allowed && !p.Allowed {
		f.rejection(p)
	}
	if !b.Allowed && p.Allowed {
		f.BaselineRejection = "rejected"
		if b.Status != nil {
			f.BaselineRejection = b.Status.Message
		}
		if row := b.Rejecting(); row != nil {
			k := StepOf(*row)
			f.BaselineRejectedBy = &k
		}
	}
	f.failures(p, baseRows)
	if b.Allowed && p.Allowed {
		f.mutation(b, p, baseRows, changed)
	}
	for _, text := range newWarnings(b.Warnings, p.Warnings) {
		f.Warnings = append(f.Warnings, Warning{Steps: warningSteps(text, p.Rows, changed), Text: text})
	}
	f.Effects = f.effects()
	return f
}

// rowOutcomes are the outcomes each step had in an admission.
func rowOutcomes(rows []engine.Row) map[Step]map[engine.Outcome]bool {
	out := map[Step]map[engine.Outcome]bool{}
	for _, row := range rows {
		k := StepOf(row)
		if out[k] == nil {
			out[k] = map[engine.Outcome]bool{}
		}
		out[k][row.Outcome] = true
	}
	return out
}

// rejection records the proposal's rejection: the first step that rejected is the one whose
// status the client receives; a call that failed is a failure, what to fix, rather than a
// denial.
func (f *Finding) rejection(p *engine.Result) {
	rejecting := p.Rejecting()
	if rejecting != nil && rejecting.Outcome == engine.OutcomeError && rejecting.Type.IsCall() {
		f.Failures = append(f.Failures, Failure{Step: StepOf(*rejecting), Message: rejecting.Reason, Rejected: true})
		return
	}
	d := &Denial{Message: "rejected"}
	if rejecting != nil {
		d.Step = StepOf(*rejecting)
	}
	if p.Status != nil {
		d.Code, d.Reason, d.Message = p.Status.Code, string(p.Status.Reason), p.Status.Message
	}
	f.Denial = d
}

// failures records the calls that fail where the baseline's did not: those that failed open,
// and those that failed the request after another rejection was already counted.
func (f *Finding) failures(p *engine.Result, baseRows map[Step]map[engine.Outcome]bool) {
	seen := map[Step]bool{}
	for _, failure := range f.Failures {
		seen[failure.Step] = true
	}
	for _, row := range p.Rows {
		k := StepOf(row)
		if !k.Type.IsCall() || seen[k] || baseRows[k][row.Outcome] {
			continue
		}
		switch row.Outcome {
		case engine.OutcomeFailedOpen:
			f.Failures = append(f.Failures, Failure{Step: k, Message: row.Reason})
			seen[k] = true
		case engine.OutcomeError:
			if f.Denial == nil || f.Denial.Step != k {
				f.Failures = append(f.Failures, Failure{Step: k, Message: row.Reason, Rejected: !p.Allowed})
				seen[k] = true
			}
		}
	}
}

// mutation records how the object the proposal admits differs from the baseline's, and the
// steps that made it so: the changed steps that patched, else the steps that patch where they
// did not (a built-in plugin reacting to a change). The registry's preparation follows what
// changed (a new generation for a new spec): it is not a cause.
func (f *Finding) mutation(b, p *engine.Result, baseRows map[Step]map[engine.Outcome]bool, changed map[Step]string) {
	if len(b.Object) == 0 || len(p.Object) == 0 || string(b.Object) == "null" {
		return
	}
	if ops, err := patch.Diff(b.Object, p.Object); err == nil {
		for _, op := range ops {
			// managedFields record who wrote what, and when: not what the object is.
			if op.Path == "/metadata/managedFields" || strings.HasPrefix(op.Path, "/metadata/managedFields/") {
				continue
			}
			f.Patch = append(f.Patch, op)
		}
	}
	if len(f.Patch) == 0 {
		return
	}
	var newly []Step
	for _, row := range p.Rows {
		k := StepOf(row)
		if row.Outcome != engine.OutcomePatched || k.Type == engine.TypePreparation || slices.Contains(f.MutatedBy, k) || slices.Contains(newly, k) {
			continue
		}
		switch {
		case changed[k] != "":
			f.MutatedBy = append(f.MutatedBy, k)
		case !baseRows[k][engine.OutcomePatched]:
			newly = append(newly, k)
		}
	}
	if len(f.MutatedBy) == 0 {
		f.MutatedBy = newly
	}
}

// effects lists what is new, worst first. A write rejected by a failing call is failing rather
// than denied: the call is what to fix.
func (f *Finding) effects() []Effect {
	var out []Effect
	if f.Denial != nil {
		out = append(out, EffectDenied)
	}
	if len(f.Failures) > 0 {
		out = append(out, EffectFailing)
	}
	if len(f.Warnings) > 0 {
		out = append(out, EffectWarned)
	}
	if len(f.Patch) > 0 {
		out = append(out, EffectMutated)
	}
	if f.BaselineRejection != "" {
		out = append(out, EffectAllowed)
	}
	return out
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
func warningSteps(text string, rows []engine.Row, changed map[Step]string) []Step {
	if m := policyWarning.FindStringSubmatch(text); m != nil {
		return []Step{policyStep(m[1]+"AdmissionPolicy", m[2])}
	}
	if strings.HasPrefix(text, "would violate PodSecurity") {
		return []Step{{Type: engine.TypeAdmissionPlugin, Name: "PodSecurity"}}
	}
	var answered []Step
	for _, row := range rows {
		k := StepOf(row)
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
