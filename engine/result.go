package engine

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/patch"
)

// Outcome is how one step of an admission ended: a webhook, an admission plugin, a policy
// binding, the registry's preparation.
type Outcome string

const (
	OutcomeAllowed    Outcome = "allowed"     // called, admitted without change
	OutcomePatched    Outcome = "patched"     // called, admitted with a patch
	OutcomeDenied     Outcome = "denied"      // called, answered allowed=false
	OutcomeError      Outcome = "error"       // the call or its answer failed the request
	OutcomeFailedOpen Outcome = "failed-open" // the call failed and failurePolicy Ignore admitted
	OutcomeSkipped    Outcome = "skipped"     // not called; Reason says why
	// OutcomeInert is an admission policy or binding that can never apply — a policy no binding
	// names, a binding whose policy does not exist — as kube-apiserver silently lets it be;
	// Reason says which.
	OutcomeInert Outcome = "inert"
)

// RowType is what ran at a step of the chain, as the result's rows name it.
type RowType string

const (
	TypeMutatingWebhook   RowType = "mutating"          // a mutating webhook
	TypeValidatingWebhook RowType = "validating"        // a validating webhook
	TypeMutatingPolicy    RowType = "mutating-policy"   // a MutatingAdmissionPolicy's binding
	TypeValidatingPolicy  RowType = "validating-policy" // a ValidatingAdmissionPolicy's binding
	TypeAdmissionPlugin   RowType = "admission-plugin"  // a built-in admission plugin
	TypePreparation       RowType = "preparation"       // the registry's preparation and validation
	TypePlugin            RowType = "plugin"            // a step that names no type of its own
)

// IsWebhook reports a webhook's row.
func (t RowType) IsWebhook() bool { return t == TypeMutatingWebhook || t == TypeValidatingWebhook }

// IsPolicy reports an admission policy's row.
func (t RowType) IsPolicy() bool { return t == TypeMutatingPolicy || t == TypeValidatingPolicy }

// IsCall reports a step whose failure its failurePolicy decides: a webhook or a policy.
func (t RowType) IsCall() bool { return t.IsWebhook() || t.IsPolicy() }

// Phase is where in the chain a step ran.
type Phase string

const (
	PhaseMutating    Phase = "mutating"
	PhasePreparation Phase = "preparation"
	PhaseValidating  Phase = "validating"
)

// Row is what happened at one step of the chain in one round: a webhook, a built-in admission
// plugin, an admission policy binding, the registry's preparation.
type Row struct {
	Configuration string `json:"configuration"`
	Name          string `json:"name"`
	// Type is what ran.
	Type RowType `json:"type"`
	// Phase is where in the chain it ran.
	Phase Phase `json:"phase"`
	// Binding is the binding of an admission policy's row.
	Binding string  `json:"binding,omitempty"`
	Round   int     `json:"round"`
	Outcome Outcome `json:"outcome"`
	// Reason says why a webhook was skipped, or what its error or denial was.
	Reason string `json:"reason,omitempty"`
	// Patch is the JSON patch a mutating webhook returned.
	Patch           json.RawMessage `json:"patch,omitempty"`
	Duration        time.Duration   `json:"-"`
	DurationSeconds float64         `json:"durationSeconds"`

	order rowOrder
}

// rowOrder places a row of the result: phase, round, step within the phase, position within
// the step. Steps that run parts in parallel (validating webhooks) finish in any order; their
// rows are listed in this order.
type rowOrder struct {
	phase, round, step, pos int
}

func (o rowOrder) less(p rowOrder) bool {
	if o.phase != p.phase {
		return o.phase < p.phase
	}
	if o.round != p.round {
		return o.round < p.round
	}
	if o.step != p.step {
		return o.step < p.step
	}
	return o.pos < p.pos
}

// Result is the outcome of one admission: the `admit review` contract.
type Result struct {
	Allowed bool `json:"allowed"`
	// Status is what the API client receives when the request is rejected.
	Status *metav1.Status `json:"status,omitempty"`
	// Object is the object after mutation (null for DELETE and CONNECT).
	Object json.RawMessage `json:"object"`
	// Patch turns the submitted object into Object.
	Patch            patch.Patch       `json:"patch"`
	Warnings         []string          `json:"warnings"`
	AuditAnnotations map[string]string `json:"auditAnnotations"`
	// Rows are the rows of every step of the chain, in its order (the field's name is the
	// contract's, from when only webhooks had rows).
	Rows []Row `json:"webhooks"`
	// Rejections lists every rejecting validating webhook's status when several rejected; Status
	// is the first of them by webhook order.
	Rejections []metav1.Status `json:"rejections,omitempty"`

	// Decoded is the object as admission started with it: after the Codec's decoding and
	// defaulting, the submitted object without a Codec. Mutated is the object after the mutating
	// phase, before the preparation. Both are for presenting what admission changed.
	Decoded json.RawMessage `json:"-"`
	Mutated json.RawMessage `json:"-"`
}

// Rejecting is the row of the step that rejected the request, the one whose status the client
// receives: the first row denied or failed, in the chain's order; nil when nothing rejected.
func (r *Result) Rejecting() *Row {
	for i := range r.Rows {
		if o := r.Rows[i].Outcome; o == OutcomeDenied || o == OutcomeError {
			return &r.Rows[i]
		}
	}
	return nil
}

// Failed says the request was refused because a step failed (a webhook that could not be
// called or answered wrongly, under failurePolicy Fail; a policy's expression that errs) rather
// than because one denied it.
func (r *Result) Failed() bool {
	row := r.Rejecting()
	return !r.Allowed && row != nil && row.Outcome == OutcomeError
}
