package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"time"
	"unicode/utf8"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/internal/jsonscan"
	"github.com/admitkit/admit/patch"
)

// DefaultMaxRequestBodyBytes is kube-apiserver's limit on a request body: 3 MiB.
const DefaultMaxRequestBodyBytes int64 = 3 << 20

// Pipeline is kube-apiserver's admission of a write, made of the steps it is given, in its
// order: the request body's limit, the Codec's decoding, the mutating steps (round after round
// while one asks for reinvocation, at most twice), the Preparer, the validating steps, the
// Codec's storage. It is safe for concurrent admissions if its steps are; nothing an admission
// leaves in it changes another's result.
type Pipeline struct {
	// Codec decodes and defaults objects as kube-apiserver does; without it objects stay the JSON
	// given and patched.
	Codec Codec
	// Mutating are the mutating steps in kube-apiserver's order: its built-in plugins, the
	// mutating admission policies, the mutating webhooks.
	Mutating []MutatingStep
	// Preparer runs between the phases of a CREATE or UPDATE (the registry).
	Preparer Preparer
	// Validating are the validating steps in order: built-in plugins, the validating admission
	// policies, the validating webhooks, ResourceQuota.
	Validating []ValidatingStep
	// MaxRequestBodyBytes is kube-apiserver's --max-request-body-bytes; default
	// DefaultMaxRequestBodyBytes, negative for no limit.
	MaxRequestBodyBytes int64
	// Now is the clock of the rows' durations; default time.Now.
	Now func() time.Time
	// Logger receives what the apiserver would log (an audit annotation dropped); default none.
	Logger *slog.Logger
	// Observe, when set, is told how long each phase took, as kube-apiserver's admission step
	// metrics are: "admit" for the mutating phase, "validate" for the validating one.
	Observe func(phase string, operation admissionv1.Operation, took time.Duration, rejected bool)
}

// The phases of an admission, in the order the result lists them.
const (
	phaseMutating = iota
	phasePreparation
	phaseValidating
)

// phaseName names a phase in the result.
func phaseName(phase int) Phase {
	switch phase {
	case phaseMutating:
		return PhaseMutating
	case phasePreparation:
		return PhasePreparation
	}
	return PhaseValidating
}

// Admit runs req through the pipeline and returns what the apiserver would decide. The error is
// only for a malformed Request; a rejection is a Result with Allowed false.
func (p *Pipeline) Admit(ctx context.Context, req *Request) (*Result, error) {
	submitted, err := req.validate()
	if err != nil {
		return nil, fmt.Errorf("invalid admission request: %w", err)
	}
	a := newAdmission(p, req)
	a.submitted = submitted
	ctx = withAdmission(ctx, a)

	start := p.now()
	err = a.readBody()
	if err == nil {
		err = a.decode(ctx)
	}
	decoded := a.object
	if err == nil {
		err = a.mutate(ctx)
	}
	mutated := a.object
	p.observe("admit", req.Operation, p.now().Sub(start), err != nil)
	if err == nil {
		err = a.prepare(ctx)
	}
	var rejections []error
	if err == nil {
		start = p.now()
		rejections = a.validate(ctx)
		if len(rejections) > 0 {
			err = rejections[0]
		}
		p.observe("validate", req.Operation, p.now().Sub(start), err != nil)
	}
	if err == nil {
		err = a.store(ctx)
	}

	result := &Result{
		Allowed:          err == nil,
		Object:           a.object,
		Warnings:         a.warnings.list(),
		AuditAnnotations: a.annotations,
		Rows:             a.sortedRows(),
		Decoded:          decoded,
		Mutated:          mutated,
	}
	if result.Warnings == nil {
		result.Warnings = []string{}
	}
	if err != nil {
		result.Status = StatusOf(err)
		if len(rejections) > 1 {
			for _, r := range rejections {
				result.Rejections = append(result.Rejections, *StatusOf(r))
			}
		}
	}
	if result.Patch, err = a.resultPatch(); err != nil {
		return nil, err
	}
	return result, nil
}

// resultPatch is the patch from the submitted object to the admitted one.
func (a *admission) resultPatch() (patch.Patch, error) {
	// Nothing to diff when nothing replaced the object.
	if len(a.req.Object) == 0 || len(a.object) == 0 || string(a.req.Object) == string(a.object) {
		return patch.Patch{}, nil
	}
	var diff patch.Patch
	var err error
	if a.submitted != nil {
		diff, err = a.submitted.Diff(a.object)
	} else {
		diff, err = patch.Diff(a.req.Object, a.object)
	}
	if err != nil {
		return nil, fmt.Errorf("computing the patch from the submitted object to the admitted one: %w", err)
	}
	return diff, nil
}

func (p *Pipeline) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

func (p *Pipeline) observe(phase string, op admissionv1.Operation, took time.Duration, rejected bool) {
	if p.Observe != nil {
		p.Observe(phase, op, took, rejected)
	}
}

// readBody refuses an object larger than the request body limit, as kube-apiserver's handler
// does while reading the body, before anything else runs.
func (a *admission) readBody() error {
	limit := a.p.MaxRequestBodyBytes
	switch {
	case limit == 0:
		limit = DefaultMaxRequestBodyBytes
	case limit < 0:
		return nil
	}
	if int64(len(a.req.Object)) > limit {
		a.object = nil // never read: the result does not echo it
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
	}
	return nil
}

// decode starts the admission with the Codec's reading of the request's objects.
func (a *admission) decode(ctx context.Context) error {
	if a.p.Codec == nil {
		return nil
	}
	decoded, err := a.p.Codec.Decode(ctx, a.req)
	if err != nil {
		return err
	}
	a.object, a.oldObject = decoded.Object, decoded.OldObject
	for _, w := range decoded.Warnings {
		a.warnings.add(w)
	}
	return nil
}

// mutate runs the mutating phase: every mutating step in order, and every one again if a step
// asked for it, as kube-apiserver reinvokes its whole chain once.
func (a *admission) mutate(ctx context.Context) error {
	for round := 0; round < 2; round++ {
		if round == 1 && !a.reinvoke {
			return nil
		}
		for i, s := range a.p.Mutating {
			at := a.attributes(rowOrder{phase: phaseMutating, round: round, step: i})
			if err := a.run(s, at, func() error { return s.Admit(ctx, at) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// prepare runs the Preparer on a CREATE or UPDATE, after the generated name of a generateName
// CREATE is set: the apiserver's registry names the object before validating admission, so
// validating steps and the admitted object carry the name — unless mutating admission named it
// already: the registry generates a name only for an object that still has none.
func (a *admission) prepare(ctx context.Context) error {
	if name := objectName(a.object); name != "" {
		a.name = name
	} else if a.req.GeneratedName != "" && len(a.object) > 0 {
		named, err := withName(a.object, a.req.GeneratedName)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("naming the object %q: %w", a.req.GeneratedName, err))
		}
		a.object, a.name = named, a.req.GeneratedName
	}
	p := a.p.Preparer
	op := a.req.Operation
	if p == nil || len(a.object) == 0 || (op != admissionv1.Create && op != admissionv1.Update) {
		return nil
	}
	at := a.attributes(rowOrder{phase: phasePreparation})
	err := a.run(p, at, func() error { return p.Prepare(ctx, at) })
	if err == nil {
		if name := objectName(a.object); name != "" {
			a.name = name
		}
	}
	return err
}

// validate runs the validating steps in order, stopping at the first that rejects. It returns
// every rejection of that step.
func (a *admission) validate(ctx context.Context) []error {
	for i, s := range a.p.Validating {
		at := a.attributes(rowOrder{phase: phaseValidating, step: i})
		if err := a.run(s, at, func() error { return s.Validate(ctx, at) }); err != nil {
			var several Rejections
			if errors.As(err, &several) {
				return several
			}
			return []error{err}
		}
	}
	return nil
}

// store makes the admitted object what the storage returns, with the Codec.
func (a *admission) store(ctx context.Context) error {
	op := a.req.Operation
	if a.p.Codec == nil || len(a.object) == 0 || (op != admissionv1.Create && op != admissionv1.Update) {
		return nil
	}
	stored, err := a.p.Codec.Stored(ctx, a.req, a.object)
	if err != nil {
		return AsStatusError(err)
	}
	a.object = stored
	return nil
}

func (a *admission) attributes(order rowOrder) *Attributes {
	return &Attributes{a: a, Request: a.req, order: order}
}

// run runs one step and records its row, unless the step recorded rows of its own or does not
// apply. A status error with a 4xx code is a denial; anything else that fails is an error.
func (a *admission) run(s Step, at *Attributes, step func() error) error {
	start := a.p.now()
	err := step()
	if at.Recorded() || (at.inapplicable && err == nil) {
		return err
	}
	r := Row{Name: s.Name(), Type: TypePlugin, Duration: a.p.now().Sub(start)}
	if t, ok := s.(Typed); ok {
		r.Type = t.Type()
	}
	switch {
	case err == nil && at.changed:
		r.Outcome = OutcomePatched
	case err == nil:
		r.Outcome = OutcomeAllowed
	default:
		r.Outcome, r.Reason = OutcomeOf(err), StatusOf(err).Message
	}
	at.Record(r)
	return err
}

// sortedRows lists the rows in the order of the chain: the mutating phase round by round, the
// preparation, the validating phase, each step's rows by position.
func (a *admission) sortedRows() []Row {
	// Every step has returned: the rows are sorted where they are and handed over.
	out := slices.Clip(a.rows)
	sort.SliceStable(out, func(i, j int) bool { return out[i].order.less(out[j].order) })
	return out
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

// objectName reads metadata.name of a JSON object, "" if it has none. It runs on every
// admission, on objects of tens of kilobytes: it scans to the name rather than decoding the
// object, and decodes only what the scan does not follow (an escaped key, an unexpected shape).
// Keys match case-sensitively, as the apiserver decodes them; the last of repeated keys wins.
func objectName(obj json.RawMessage) string {
	if name, ok := scanName(obj); ok {
		return name
	}
	return decodedName(obj)
}

// decodedName is metadata.name as the apiserver's decoder reads it: case-sensitive keys, the
// last of repeated members.
func decodedName(obj []byte) string {
	var head struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = kjson.UnmarshalCaseSensitivePreserveInts(obj, &head)
	return head.Metadata.Name
}

// scanName finds metadata.name by scanning; ok is false where the scan cannot be sure.
func scanName(obj []byte) (name string, ok bool) {
	s := jsonscan.Scanner{Data: obj}
	ok = s.Members(func(key []byte) bool {
		if string(key) != "metadata" {
			return s.SkipValue()
		}
		if s.Peek() == 'n' {
			return s.SkipValue() // null leaves what an earlier metadata said, as a decoder does
		}
		return s.Members(func(key []byte) bool {
			if string(key) != "name" {
				return s.SkipValue()
			}
			if s.Peek() != '"' {
				return false
			}
			start := s.Pos
			if !s.SkipString() {
				return false
			}
			text := obj[start+1 : s.Pos-1]
			if bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text) {
				name = string(text)
				return true
			}
			// Escapes, and invalid UTF-8 (which a decoder replaces), are the decoder's.
			return json.Unmarshal(obj[start:s.Pos], &name) == nil
		})
	})
	s.Space()
	return name, ok && s.Pos == len(obj)
}
