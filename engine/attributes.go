package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/admitkit/admit/patch"
)

// admission is the state of one Admit call.
type admission struct {
	p   *Pipeline
	req *Request
	// object is the current object in the request's version; steps' changes update it.
	// oldObject is the existing object of an UPDATE or DELETE.
	object, oldObject json.RawMessage
	// submitted is the request's object parsed, shared by the steps that patch it while it is
	// the current object, and by the result's patch; nil when it does not parse.
	submitted *patch.Document
	// name is the object's name as admission sees it: empty for a generateName CREATE while
	// mutating, the generated name while validating.
	name string
	// reinvoke says a step asked for another round of the mutating phase.
	reinvoke bool

	warnings    warningRecorder
	mu          sync.Mutex // guards annotations, rows and values while a step runs parts in parallel
	annotations map[string]string
	rows        []Row
	values      map[any]any
}

func newAdmission(p *Pipeline, req *Request) *admission {
	a := &admission{p: p, req: req, name: req.Name, annotations: map[string]string{}, values: map[any]any{},
		// A row per step and round, most of them: room for two rounds of mutating steps.
		rows: make([]Row, 0, 2*len(p.Mutating)+len(p.Validating)+4)}
	if len(req.Object) > 0 {
		a.object = req.Object
	}
	if len(req.OldObject) > 0 {
		a.oldObject = req.OldObject
	}
	return a
}

// admissionKey marks a context that belongs to an admission.
type admissionKey struct{}

func withAdmission(ctx context.Context, a *admission) context.Context {
	return context.WithValue(ctx, admissionKey{}, a)
}

// AdmissionState returns the state a step keeps under key for the admission ctx belongs to,
// made by init on first use: what the step remembers lasts this admission only, so nothing it
// keeps can change another admission's result. The contexts a Pipeline gives its Codec and steps
// belong to the admission; for another context, init's value is returned and kept nowhere.
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

// Attributes is what a step sees of the admission in flight, and how it adds to the result.
// They are safe for the concurrent use of a step's parallel parts.
type Attributes struct {
	a *admission
	// Request is the admission's request; steps must not change it.
	Request *Request
	order   rowOrder
	// recorded counts the rows the step recorded itself.
	recorded int
	changed  bool
	// inapplicable marks a step that does not apply to this request: it leaves no row.
	inapplicable bool
}

// Name is the object's name as admission sees it: empty for a generateName CREATE until the
// name is generated.
func (at *Attributes) Name() string { return at.a.name }

// Object is the object in the request's version (nil on DELETE and CONNECT).
func (at *Attributes) Object() json.RawMessage {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	return at.a.object
}

// SetObject replaces the object; it must be in the request's version.
func (at *Attributes) SetObject(obj json.RawMessage) {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	if !SemanticallyEqual(at.a.object, obj) {
		at.changed = true
	}
	at.a.object = obj
}

// ReplaceObject replaces the object with one the step already compared with the object it
// started from (changed), sparing SetObject's comparison: a webhook's patch says whether it
// changed anything, and comparing a large object again costs as much as the patch.
func (at *Attributes) ReplaceObject(obj json.RawMessage, changed bool) {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	at.changed = at.changed || changed
	at.a.object = obj
}

// ParsedObject returns Object parsed, when Object is still the request's object: the parse
// made while the request was checked, for a step that applies a patch to it. It returns nil
// once a step has replaced the object.
func (at *Attributes) ParsedObject() *patch.Document {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	if d := at.a.submitted; d != nil && string(d.Bytes()) == string(at.a.object) {
		return d
	}
	return nil
}

// OldObject is the existing object of an UPDATE or DELETE.
func (at *Attributes) OldObject() json.RawMessage {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	return at.a.oldObject
}

// SetOldObject replaces the old object, for a preparation that shows validating admission
// another view of it than mutating admission saw (the scale handler's Scales).
func (at *Attributes) SetOldObject(obj json.RawMessage) {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	at.a.oldObject = obj
}

// Round is the mutating phase's round: 0, or 1 when a step asked for reinvocation.
func (at *Attributes) Round() int { return at.order.round }

// IsReinvoke reports whether this is the mutating phase's second round.
func (at *Attributes) IsReinvoke() bool { return at.order.round > 0 }

// RequireReinvocation asks for a second mutating round, as a webhook's change does.
func (at *Attributes) RequireReinvocation() {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	at.a.reinvoke = true
}

// AddWarning adds a warning for the client.
func (at *Attributes) AddWarning(warning string) { at.a.warnings.add(warning) }

// AddAnnotation records an audit annotation the way the apiserver's attributes do: keys must
// be a qualified name with a prefix; a key may not be given two different values.
func (at *Attributes) AddAnnotation(key, value string) {
	if len(strings.Split(key, "/")) != 2 || len(validation.IsQualifiedName(key)) != 0 {
		at.a.p.logger().Warn("dropping audit annotation with an invalid key", "key", key)
		return
	}
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	if old, ok := at.a.annotations[key]; ok && old != value {
		at.a.p.logger().Warn("dropping audit annotation that would override another value", "key", key)
		return
	}
	at.a.annotations[key] = value
}

// Record adds a row to the result after the step's earlier ones, for a step made of several
// parts (an admission policy plugin records one row per binding). A step that records no row
// gets one with its name and outcome.
func (at *Attributes) Record(r Row) {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	at.recordLocked(at.recorded, r)
}

// RecordAt adds a row at a position among the step's rows: a step whose parts finish in any
// order (validating webhooks called in parallel) lists them in their own order.
func (at *Attributes) RecordAt(pos int, r Row) {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	at.recordLocked(pos, r)
}

func (at *Attributes) recordLocked(pos int, r Row) {
	order := at.order
	order.pos = pos
	r.Round, r.order, r.Phase = order.round, order, phaseName(order.phase)
	r.DurationSeconds = r.Duration.Seconds()
	at.recorded++
	at.a.rows = append(at.a.rows, r)
}

// Recorded reports whether the step recorded rows of its own.
func (at *Attributes) Recorded() bool {
	at.a.mu.Lock()
	defer at.a.mu.Unlock()
	return at.recorded > 0
}

// NotApplicable says the step does not apply to this request (an admission plugin that does
// not handle the operation): it leaves no row in the result.
func (at *Attributes) NotApplicable() { at.inapplicable = true }

// Value returns what a step stored under key for this admission (nil if nothing): state that
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

// SemanticallyEqual compares two JSON documents by value: key order, spacing and the spelling of
// equal numbers do not matter. It asks patch.Diff, which compares the documents' tokens without
// building them as Go values. A document that is not valid JSON equals nothing.
func SemanticallyEqual(x, y json.RawMessage) bool {
	if string(x) == string(y) {
		return true
	}
	ops, err := patch.Diff(x, y)
	return err == nil && len(ops) == 0
}

func (p *Pipeline) logger() *slog.Logger {
	if p.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Logger
}
