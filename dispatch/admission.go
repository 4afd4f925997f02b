package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/patch"
)

// admission is the state of one Admit call.
type admission struct {
	d   *Dispatcher
	req *Request
	// object is the current object in the request's version; webhooks' patches update it.
	// oldObject is the existing object of an UPDATE or DELETE.
	object, oldObject json.RawMessage
	// name is what webhooks see as the object's name: empty for a generateName CREATE while
	// mutating, the generated name while validating.
	name string
	// exemptReason is why no webhook sees this admission, if none does.
	exemptReason string
	reinvoke     *reinvocation

	warnings    warningRecorder
	mu          sync.Mutex // guards annotations, webhooks and values during the validating fan-out
	annotations map[string]string
	webhooks    []WebhookResult
	values      map[any]any
	// stages is a context of this admission for the stages called without the request's own
	// (a Converter converting for a webhook).
	stages context.Context
}

func newAdmission(d *Dispatcher, req *Request) *admission {
	a := &admission{
		d: d, req: req, name: req.Name, exemptReason: ExemptReason(req),
		reinvoke:    &reinvocation{previouslyInvoked: map[string]bool{}, reinvoke: map[string]bool{}},
		annotations: map[string]string{}, values: map[any]any{},
	}
	if len(req.Object) > 0 {
		a.object = req.Object
	}
	if len(req.OldObject) > 0 {
		a.oldObject = req.OldObject
	}
	a.stages = withAdmission(context.Background(), a)
	return a
}

// admissionKey marks a context that belongs to an admission.
type admissionKey struct{}

func withAdmission(ctx context.Context, a *admission) context.Context {
	return context.WithValue(ctx, admissionKey{}, a)
}

// AdmissionState returns the state a stage keeps under key for the admission ctx belongs to,
// made by init on first use: what the stage remembers lasts this admission only, so nothing it
// keeps can change another admission's result. The contexts the Dispatcher gives its stages — a
// Codec, a Converter, Plugins, the Preparer — belong to the admission; for another context,
// init's value is returned and kept nowhere.
func AdmissionState(ctx context.Context, key any, init func() any) any {
	a, ok := ctx.Value(admissionKey{}).(*admission)
	if !ok {
		return init()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if v, ok := a.values[key]; ok {
		return v
	}
	v := init()
	a.values[key] = v
	return v
}

// The phases and steps of an admission, in the order the result lists them.
const (
	phaseMutating = iota
	phasePreparation
	phaseValidating
)
const (
	stepPluginsBefore = iota
	stepWebhooks
	stepPluginsAfter
)

// rowOrder places a row of the result: phase, round, step within the round, position within
// the step. Validating webhooks finish in any order; their rows are listed in this order.
type rowOrder struct {
	phase, round, step, pos int
}

// phaseName names a phase in the result.
func phaseName(phase int) string {
	switch phase {
	case phaseMutating:
		return "mutating"
	case phasePreparation:
		return "preparation"
	}
	return "validating"
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

// record adds a webhook's outcome to the result: r with the webhook's identity filled in; pos
// is the webhook's position in its phase, which orders the result.
func (a *admission) record(h *hook, pos int, r WebhookResult) {
	r.Configuration, r.Name, r.Type = h.configuration, h.name, "validating"
	if h.mutating {
		r.Type = "mutating"
	}
	phase := phaseValidating
	if h.mutating {
		phase = phaseMutating
	}
	r.DurationSeconds, r.order = r.Duration.Seconds(), rowOrder{phase: phase, round: r.Round, step: stepWebhooks, pos: pos}
	r.Phase = phaseName(phase)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.webhooks = append(a.webhooks, r)
}

// addAnnotation records an audit annotation the way the apiserver's attributes do: keys must be
// a qualified name with a prefix; a key may not be given two different values.
func (a *admission) addAnnotation(key, value string) {
	if len(strings.Split(key, "/")) != 2 || len(validation.IsQualifiedName(key)) != 0 {
		a.d.logger.Warn("dropping audit annotation with an invalid key", "key", key)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if old, ok := a.annotations[key]; ok && old != value {
		a.d.logger.Warn("dropping audit annotation that would override another value", "key", key)
		return
	}
	a.annotations[key] = value
}

// objectAs returns the current object in kind's version, converting when the webhook was matched
// through an equivalent resource.
func (a *admission) objectAs(kind schema.GroupVersionKind) (json.RawMessage, error) {
	return a.convert(a.object, kind)
}

func (a *admission) oldObjectAs(kind schema.GroupVersionKind) (json.RawMessage, error) {
	return a.convert(a.oldObject, kind)
}

func (a *admission) convert(obj json.RawMessage, kind schema.GroupVersionKind) (json.RawMessage, error) {
	if len(obj) == 0 || kind == a.req.Kind || a.req.Operation == admissionv1.Connect {
		return obj, nil
	}
	if a.d.converter == nil {
		return nil, fmt.Errorf("no conversion from %s to %s is configured", a.req.Kind, kind)
	}
	return a.d.converter.Convert(a.stages, obj, kind)
}

// semanticallyEqual compares two JSON documents by value: key order, spacing and the spelling of
// equal numbers do not matter. It asks patch.Diff, which compares the documents' tokens without
// building them as Go values. A document that is not valid JSON equals nothing.
func semanticallyEqual(x, y json.RawMessage) bool {
	if string(x) == string(y) {
		return true
	}
	ops, err := patch.Diff(x, y)
	return err == nil && len(ops) == 0
}

// isCanceled reports whether a calling error came from the request being canceled, which the
// apiserver neither counts nor annotates as a fail-open.
func isCanceled(err *CallingError) bool { return errors.Is(err.Reason, context.Canceled) }

// sortedWebhooks lists the rows in the order of the chain: the mutating phase round by round
// (plugins, then webhooks), the preparation, the validating phase (plugins, webhooks, plugins
// after the webhooks), each by position. Validating webhooks finish in any order.
func (a *admission) sortedWebhooks() []WebhookResult {
	out := append([]WebhookResult(nil), a.webhooks...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].order.less(out[j].order) })
	return out
}

// ExemptReason says why kube-apiserver sends req to no webhook and no admission policy at all,
// or returns "". Webhook and admission policy configurations are exempt so a broken webhook can
// always be removed. (The authentication and authorization reviews are excluded from admission
// policies only: kube-apiserver 1.36 sends them to webhooks.)
func ExemptReason(req *Request) string {
	if req.Kind.Group == admissionregistrationv1.GroupName {
		switch req.Kind.Kind {
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
			"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
			"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
			return req.Kind.Kind + " objects are never sent to admission webhooks, so a broken webhook can always be removed"
		}
	}
	return ""
}

// withName returns obj with metadata.name set.
func withName(obj json.RawMessage, name string) (json.RawMessage, error) {
	var fields map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(obj, &fields); err != nil {
		return nil, err
	}
	meta, _ := fields["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		fields["metadata"] = meta
	}
	meta["name"] = name
	return json.Marshal(fields)
}

// ExcludedVirtualResources returns the resources kube-apiserver never sends to its admission
// policies: reviews that are not stored, so intercepting them could only break authentication
// and authorization. kube-apiserver 1.36 still sends them to admission webhooks (1.37 stops).
func ExcludedVirtualResources() []schema.GroupResource {
	return []schema.GroupResource{
		{Group: "authentication.k8s.io", Resource: "tokenreviews"},
		{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
		{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	}
}

// objectName reads metadata.name of a JSON object, "" if it has none.
func objectName(obj json.RawMessage) string {
	var head struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(obj, &head)
	return head.Metadata.Name
}
