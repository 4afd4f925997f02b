package dispatch

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The webhooks are one part of kube-apiserver's admission of a write. Around them the apiserver
// decodes and defaults the object, runs its built-in admission plugins and admission policies,
// decodes and defaults every patched object again, and prepares the object for storage (system
// metadata, the kind's own validation) before validating admission. A Dispatcher does what it
// is given of this: each stage below is an option, so a program chooses what it links (package
// chain implements them all with Kubernetes' own code). Without them a Dispatcher calls the
// webhooks with the objects as given and as patched.

// Codec is how kube-apiserver reads objects: decoding into the kind's Go type (or a custom
// resource's schema), defaulting, and converting through its internal version.
type Codec interface {
	// Decode turns a request's objects into what admission starts with, as the apiserver's
	// handler does before admission: the object as the client sent it, decoded, defaulted and
	// converted through the internal version (UPDATE and CREATE), and the old object as the
	// storage returns it. The warnings are the decoder's (unknown and duplicate fields); an error
	// is the status the client receives (400 for an object that does not decode).
	Decode(ctx context.Context, req *Request) (*Decoded, error)
	// Patched is what the apiserver does with an object a mutating webhook patched, in kind (the
	// version the webhook was called with): decode it into kind's Go type (a member the type
	// lacks disappears) and default it. changed reports whether the decoded object, before
	// defaulting, differs from before; it decides reinvocation. An error fails the request.
	Patched(ctx context.Context, kind schema.GroupVersionKind, before, patched json.RawMessage) (object json.RawMessage, changed bool, err error)
	// Stored is the admitted object as the storage writes it and reads it back, which is what
	// the client receives: encoded in the storage version (a custom resource pruned of what its
	// schema does not know) and decoded with defaults.
	Stored(ctx context.Context, req *Request, object json.RawMessage) (json.RawMessage, error)
}

// Decoded is what admission starts with.
type Decoded struct {
	Object, OldObject json.RawMessage
	Warnings          []string
}

// Plugin is an in-process step of the admission chain, such as one of kube-apiserver's built-in
// admission plugins or its admission policy plugins. A Plugin implements MutatingPlugin,
// ValidatingPlugin or both.
type Plugin interface {
	// Name is the plugin's name in the result, e.g. "ServiceAccount".
	Name() string
}

// MutatingPlugin runs in every round of the mutating phase, before the mutating webhooks; a
// round of reinvocation runs it again, as kube-apiserver reinvokes its in-tree plugins.
type MutatingPlugin interface {
	Plugin
	// Admit may change the object with a.SetObject. An error rejects the request with its status
	// (a non-status error is an internal error).
	Admit(ctx context.Context, a *Attributes) error
}

// ValidatingPlugin runs in the validating phase, before the validating webhooks (Options.Plugins)
// or after them (Options.PluginsAfterWebhooks). It may not change the object.
type ValidatingPlugin interface {
	Plugin
	Validate(ctx context.Context, a *Attributes) error
}

// PluginType is an optional interface of a Plugin: the type its row has in the result (e.g.
// "admission-plugin", "validating-policy"). The default is "plugin".
type PluginType interface {
	Type() string
}

// Preparer is what kube-apiserver's registry does between mutating and validating admission:
// name generation, system metadata (uid, creation timestamp), the kind's preparation for
// storage (generation, status, defaults that depend on the old object) and its own validation.
type Preparer interface {
	Plugin
	// Prepare changes the object into what validating admission sees, with a.SetObject. An error
	// rejects the request with its status (422 Invalid from the kind's validation).
	Prepare(ctx context.Context, a *Attributes) error
}

// Attributes is what an in-process stage sees of the admission in flight, and how it adds to
// the result.
type Attributes struct {
	a *admission
	// Request is the admission's request; stages must not change it.
	Request *Request
	round   int
	order   rowOrder
	// recorded counts the rows the stage recorded itself.
	recorded int
	changed  bool
	// inapplicable marks a stage that does not apply to this request: it leaves no row.
	inapplicable bool
}

// Name is the object's name as admission sees it: empty for a generateName CREATE until the
// name is generated.
func (at *Attributes) Name() string { return at.a.name }

// Object is the object in the request's version (nil on DELETE and CONNECT).
func (at *Attributes) Object() json.RawMessage { return at.a.object }

// SetObject replaces the object; it must be in the request's version.
func (at *Attributes) SetObject(obj json.RawMessage) {
	if !semanticallyEqual(at.a.object, obj) {
		at.changed = true
	}
	at.a.object = obj
}

// OldObject is the existing object of an UPDATE or DELETE.
func (at *Attributes) OldObject() json.RawMessage { return at.a.oldObject }

// SetOldObject replaces the old object, for a preparation that shows validating admission
// another view of it than mutating admission saw (the scale handler's Scales).
func (at *Attributes) SetOldObject(obj json.RawMessage) { at.a.oldObject = obj }

// IsReinvoke reports whether this is the mutating phase's second round.
func (at *Attributes) IsReinvoke() bool { return at.round > 0 }

// RequireReinvocation asks for a second mutating round, as a webhook's change does.
func (at *Attributes) RequireReinvocation() { at.a.reinvoke.shouldReinvoke = true }

// AddWarning adds a warning for the client.
func (at *Attributes) AddWarning(warning string) { at.a.warnings.add(warning) }

// AddAnnotation adds an audit annotation; see the apiserver's rules in addAnnotation.
func (at *Attributes) AddAnnotation(key, value string) { at.a.addAnnotation(key, value) }

// Value returns what a stage stored under key for this admission (nil if nothing): state that
// lasts across the rounds and phases of one admission.
func (at *Attributes) Value(key any) any {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	return at.a.values[key]
}

// SetValue stores value under key for this admission.
func (at *Attributes) SetValue(key, value any) {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	at.a.values[key] = value
}

// Recorded reports whether the stage recorded rows of its own.
func (at *Attributes) Recorded() bool { return at.recorded > 0 }

// NotApplicable says the stage does not apply to this request (an admission plugin that does
// not handle the operation): it leaves no row in the result.
func (at *Attributes) NotApplicable() { at.inapplicable = true }

// Record adds a row to the result, for a stage made of several parts (an admission policy
// plugin records one row per policy binding). A stage that records no row gets one with its
// name and outcome.
func (at *Attributes) Record(r WebhookResult) {
	at.recorded++
	r.Round, r.order, r.Phase = at.round, at.order, phaseName(at.order.phase)
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	r.DurationSeconds = r.Duration.Seconds()
	at.a.webhooks = append(at.a.webhooks, r)
}

// runPlugin runs one in-process stage at its place in the chain and records its row, unless the
// stage recorded rows of its own. A status error with a 4xx code is a denial; anything else that
// fails is an error.
func (a *admission) runPlugin(p Plugin, order rowOrder, run func(*Attributes) error) error {
	at := &Attributes{a: a, Request: a.req, round: order.round, order: order}
	start := a.d.now()
	err := run(at)
	if at.recorded > 0 || (at.inapplicable && err == nil) {
		return err
	}
	r := WebhookResult{Name: p.Name(), Type: "plugin", Round: order.round, Duration: a.d.now().Sub(start)}
	if t, ok := p.(PluginType); ok {
		r.Type = t.Type()
	}
	switch {
	case err == nil && at.changed:
		r.Outcome = OutcomePatched
	case err == nil:
		r.Outcome = OutcomeAllowed
	default:
		status := statusOf(err)
		r.Outcome, r.Reason = OutcomeError, status.Message
		if status.Code >= 400 && status.Code < 500 {
			r.Outcome = OutcomeDenied
		}
	}
	r.DurationSeconds, r.order, r.Phase = r.Duration.Seconds(), order, phaseName(order.phase)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.webhooks = append(a.webhooks, r)
	return err
}
