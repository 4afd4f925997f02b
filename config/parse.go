package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/resources"
)

// Source is where an object was read from: package manifest's, which reads every input.
type Source = manifest.Source

// Position is where a field is in a file (Source.Field).
type Position = manifest.Position

// Parse reads the objects in data, named name in sources and errors (e.g. "<stdin>"), as
// package manifest reads them: YAML documents or JSON values, Lists expanded, every problem
// reported with its file and line.
//
// Webhook configurations must be admissionregistration.k8s.io/v1; they are decoded strictly
// (an unknown or duplicate field is an error, as with kubectl's default --validate=strict: a
// misspelt namespaceSelector must not silently match every namespace) and then defaulted with
// SetDefaultsMutating or SetDefaultsValidating. They are not validated: see Set.Validate.
// Objects of other kinds are kept as read, in Set.Others.
//
// A file that does not read and looks like a template ("{{ ... }}") gets a last error saying to
// render it first. On error no Set is returned.
func Parse(name string, data []byte) (*Set, error) {
	return parseFrom(manifest.NewReader(name, bytes.NewReader(data)))
}

// parseFrom reads the objects of r into a Set; on error, none, and every problem.
func parseFrom(r *manifest.Reader) (*Set, error) {
	p := &parser{set: &Set{}}
	if err := p.read(r, nil); err != nil {
		return nil, err
	}
	return p.set, nil
}

// read adds every object of r to the parser's Set, calling each (when set) with each object as
// it is read; it returns every problem of r, the template hint last.
func (p *parser) read(r *manifest.Reader, each func(manifest.Object)) error {
	for {
		obj, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			p.errs = append(p.errs, err)
			continue
		}
		if each != nil {
			each(obj)
		}
		p.add(obj)
	}
	if len(p.errs) > 0 {
		if hint := r.TemplateHint(); hint != nil {
			p.errs = append(p.errs, hint)
		}
		return errors.Join(p.errs...)
	}
	return nil
}

type parser struct {
	set  *Set
	errs []error
	// others, when set, sees the objects of other kinds and says which to keep (Options.Others).
	others func(Object) bool
}

func (p *parser) fail(source Source, err error) {
	p.errs = append(p.errs, fmt.Errorf("%s: %w", source, err))
}

// add takes one object read: a webhook configuration, decoded strictly and defaulted, an
// admission policy or binding, checked strictly and kept as read, or an object of another kind,
// kept as read. Admission policies of versions 1.36 does not serve are refused.
func (p *parser) add(obj manifest.Object) {
	gvk := obj.Object.GroupVersionKind()
	if err := checkPolicyVersion(gvk.GroupVersion(), gvk.Kind); err != nil {
		p.fail(obj.Source, err)
		return
	}
	gk := gvk.GroupKind()
	if resources.IsPolicy(gk) {
		// kubectl validates strictly by default: a misspelt messageExpression must not be read as
		// a policy without one.
		if raw := p.raw(obj); raw != nil && p.decodeStrict(raw, policyType(gk.Kind), gvk.Kind, obj) {
			o := Object{Source: obj.Source, Object: obj.Object}
			if p.others != nil {
				p.others(o) // seen, and kept: a policy is a configuration
			}
			p.set.Others = append(p.set.Others, o)
		}
		return
	}
	if gk != mutatingKind && gk != validatingKind {
		o := Object{Source: obj.Source, Object: obj.Object}
		if p.others != nil && !p.others(o) {
			p.set.Dropped++
			return
		}
		p.set.Others = append(p.set.Others, o)
		return
	}
	if err := checkWebhookVersion(gvk.GroupVersion(), gvk.Kind); err != nil {
		p.fail(obj.Source, err)
		return
	}
	raw := p.raw(obj)
	if raw == nil {
		return
	}
	if gk == mutatingKind {
		config := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if p.decodeStrict(raw, config, gvk.Kind, obj) {
			SetDefaultsMutating(config)
			p.set.Mutating = append(p.set.Mutating, Mutating{Source: obj.Source, Config: config})
		}
		return
	}
	config := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if p.decodeStrict(raw, config, gvk.Kind, obj) {
		SetDefaultsValidating(config)
		p.set.Validating = append(p.set.Validating, Validating{Source: obj.Source, Config: config})
	}
}

// raw is an object's JSON: as read, or encoded again for a List's item; nil, with the error
// recorded, when it does not encode.
func (p *parser) raw(obj manifest.Object) []byte {
	if obj.JSON != nil {
		return obj.JSON
	}
	raw, err := json.Marshal(obj.Object.Object)
	if err != nil {
		p.fail(obj.Source, fmt.Errorf("encoding %s: %w", manifest.Subject(obj.Object.GetKind(), obj.Object.Object), err))
	}
	return raw
}

// policyType is an empty Go value of an admission policy or binding kind, to decode into.
func policyType(kind string) any {
	switch kind {
	case "ValidatingAdmissionPolicy":
		return &admissionregistrationv1.ValidatingAdmissionPolicy{}
	case "ValidatingAdmissionPolicyBinding":
		return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	case "MutatingAdmissionPolicy":
		return &admissionregistrationv1.MutatingAdmissionPolicy{}
	}
	return &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
}

// addContent takes a Go value's unstructured content: its objects, a List's items.
func (p *parser) addContent(content map[string]any, source Source) {
	objects, errs := manifest.ObjectsOf(content, nil, source)
	p.errs = append(p.errs, errs...)
	for _, obj := range objects {
		p.add(obj)
	}
}

// decodeStrict decodes a webhook configuration, reporting every unknown or duplicate field at
// its own line.
func (p *parser) decodeStrict(raw []byte, into any, kindName string, obj manifest.Object) bool {
	subject := manifest.Subject(kindName, obj.Object.Object)
	strictErrs, err := sigsjson.UnmarshalStrict(raw, into)
	if err != nil {
		p.fail(obj.Source, fmt.Errorf("decoding %s: %w", subject, err))
		return false
	}
	type located struct {
		source Source
		err    error
	}
	found := make([]located, len(strictErrs))
	for i, strictErr := range strictErrs {
		found[i] = located{source: obj.Source, err: strictErr}
		var fieldErr sigsjson.FieldError
		if errors.As(strictErr, &fieldErr) {
			found[i].source = obj.Source.AtField(fieldErr.FieldPath())
		}
	}
	// YAML documents reach the decoder with their keys sorted: report in the file's order.
	sort.SliceStable(found, func(a, b int) bool { return found[a].source.Line < found[b].source.Line })
	for _, f := range found {
		p.fail(f.source, fmt.Errorf("%s: %w", subject, f.err))
	}
	return len(strictErrs) == 0
}

func checkWebhookVersion(gv schema.GroupVersion, kindName string) error {
	switch gv.Version {
	case "v1":
		return nil
	case "v1beta1":
		return fmt.Errorf("%s %s is not served since Kubernetes 1.22: use %s (where sideEffects and admissionReviewVersions are required, and failurePolicy defaults to Fail)",
			gv, kindName, admissionregistrationv1.SchemeGroupVersion)
	default:
		return fmt.Errorf("%s %s is not supported: use %s", gv, kindName, admissionregistrationv1.SchemeGroupVersion)
	}
}

// checkPolicyVersion refuses admission policies and bindings of the versions Kubernetes 1.36
// no longer serves by default (v1alpha1, v1beta1): kubectl finds no such kind there, and
// running them anyway would answer for a cluster that does not exist.
func checkPolicyVersion(gv schema.GroupVersion, kindName string) error {
	if gv.Version == "v1" || !resources.IsPolicy(gv.WithKind(kindName).GroupKind()) {
		return nil
	}
	return fmt.Errorf("no matches for kind %q in version %q: Kubernetes 1.36 serves admission policies as %s, with the same fields",
		kindName, gv, admissionregistrationv1.SchemeGroupVersion)
}
