package chain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	mutatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	policyvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
	"k8s.io/utils/ptr"

	"github.com/admitkit/admit/engine"
)

// A cluster's admission policies run in its admission chain: MutatingAdmissionPolicies just
// before the mutating webhooks, ValidatingAdmissionPolicies just before the validating webhooks.
// kube-apiserver's own policy plugins evaluate them here, one plugin per binding (each sees the
// cluster with only its policy and binding), so that every binding has its own row in the result
// and the order is the same on every run: policies by name, then their bindings by name. The
// apiserver evaluates all of a plugin's policies in one call, in an order that is not specified;
// the outcome is the same but for which of several denials is reported (admit: the first by
// name) and the order of several mutating policies' changes.

// policyBinding is one binding, with the plugin that evaluates it.
type policyBinding struct {
	policy, binding string
	// reinvocable is a mutating policy with reinvocationPolicy IfNeeded: only those can run in
	// the second round.
	reinvocable bool
	// inert says why the binding never applies (its policy does not exist), or "".
	inert  string
	plugin admission.Interface
	// definition and bindingAccessor decide whether the policy and the binding match, for the row.
	definition      generic.PolicyAccessor
	bindingAccessor generic.BindingAccessor
	matcher         generic.PolicyMatcher
	// schemas is the OpenAPI client of a mutating binding's plugin.
	schemas *schemaClient
	// failClosed is, for a validating policy with failurePolicy Ignore, the same binding with the
	// policy failing closed: kube-apiserver's plugin swallows an expression's error under
	// Ignore, counting it only in a metric, so where the binding admits, this one says whether it
	// admitted by failing open, and with which error.
	failClosed admission.ValidationInterface
}

// policyPlugins are the policy bindings of one kind, in order.
type policyPlugins struct {
	mutating   bool
	bindings   []*policyBinding
	codec      *codec
	interfaces admission.ObjectInterfaces
	// ready waits, once, until every plugin has compiled its policy and every mutating one has
	// listed the API's schemas. It runs at the first admission rather than when the chain is
	// built: the plugins do both in the background, and the plugins' own wait looks every
	// 100 ms, so by the first admission there is usually nothing left to wait for.
	ready func() error
}

// newPolicyPlugins builds a plugin per binding of the given kind over state (the cluster without
// policies): kube-apiserver's ValidatingAdmissionPolicy or MutatingAdmissionPolicy plugin,
// initialized as the apiserver initializes it, on a cluster holding state, the binding and its
// policy.
func newPolicyPlugins(ctx context.Context, mutating bool, policies, state []runtime.Object, namespaces []string, deps policyDeps) (*policyPlugins, error) {
	pairs := pairPolicies(mutating, policies)
	out := &policyPlugins{mutating: mutating, codec: deps.codec, interfaces: deps.interfaces}
	var ready []func() error
	for _, p := range pairs {
		b := &policyBinding{policy: p.name[0], binding: p.name[1]}
		out.bindings = append(out.bindings, b)
		if p.missing {
			b.inert = fmt.Sprintf("its policy %q does not exist: kube-apiserver ignores the binding", p.name[0])
			continue
		}
		if p.unbound {
			b.inert = "no binding names the policy: kube-apiserver evaluates a policy only through its bindings, so it never runs"
			continue
		}
		objects := append(append([]runtime.Object{}, state...), p.policy, p.binding)
		plugin, wait, err := deps.plugin(ctx, mutating, objects, namespaces)
		if err != nil {
			return nil, fmt.Errorf("binding %q of policy %q: %w", p.name[1], p.name[0], err)
		}
		b.plugin, b.matcher, b.schemas = plugin.plugin, plugin.matcher, plugin.schemas
		ready = append(ready, wait)
		if o, ok := p.policy.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok && o.Spec.FailurePolicy != nil && *o.Spec.FailurePolicy == admissionregistrationv1.Ignore {
			closed := o.DeepCopy()
			closed.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
			shadow, wait, err := deps.plugin(ctx, mutating, append(append([]runtime.Object{}, state...), closed, p.binding), namespaces)
			if err != nil {
				return nil, fmt.Errorf("binding %q of policy %q: %w", p.name[1], p.name[0], err)
			}
			b.failClosed = shadow.plugin.(admission.ValidationInterface)
			ready = append(ready, wait)
		}
		switch o := p.policy.(type) {
		case *admissionregistrationv1.ValidatingAdmissionPolicy:
			b.definition = validatingpolicy.NewValidatingAdmissionPolicyAccessor(o)
			b.bindingAccessor = validatingpolicy.NewValidatingAdmissionPolicyBindingAccessor(p.binding.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding))
		case *admissionregistrationv1.MutatingAdmissionPolicy:
			b.reinvocable = o.Spec.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy
			b.definition = mutatingpolicy.NewMutatingAdmissionPolicyAccessor(o)
			b.bindingAccessor = mutatingpolicy.NewMutatingAdmissionPolicyBindingAccessor(p.binding.(*admissionregistrationv1.MutatingAdmissionPolicyBinding))
		}
	}
	// The plugins become ready once their policy source has read the cluster: wait for all of
	// them at once.
	out.ready = sync.OnceValue(func() error {
		errs := make([]error, len(ready))
		var wg sync.WaitGroup
		for i, wait := range ready {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = wait() }()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	return out, nil
}

// Name, Type, Admit and Validate make policyPlugins a dispatch plugin.
func (p *policyPlugins) Name() string {
	if p.mutating {
		return mutatingpolicy.PluginName
	}
	return validatingpolicy.PluginName
}

func (p *policyPlugins) Type() engine.RowType {
	if p.mutating {
		return engine.TypeMutatingPolicy
	}
	return engine.TypeValidatingPolicy
}

type mutatingPolicies struct{ *policyPlugins }

func (m mutatingPolicies) Admit(ctx context.Context, at *engine.Attributes) error {
	return m.run(ctx, at)
}

type validatingPolicies struct{ *policyPlugins }

func (v validatingPolicies) Validate(ctx context.Context, at *engine.Attributes) error {
	return v.run(ctx, at)
}

// run evaluates every binding in order and records a row for each. A validating binding's
// denial does not stop the others (the apiserver evaluates them all, for their warnings and
// audit annotations); the first denial is the answer. A mutating binding's error stops the
// phase, as in the apiserver.
func (p *policyPlugins) run(ctx context.Context, at *engine.Attributes) error {
	if len(p.bindings) == 0 {
		at.NotApplicable()
		return nil
	}
	if err := p.ready(); err != nil {
		return apierrors.NewInternalError(err)
	}
	req := at.Request
	if p.codec.classify(req.Kind) == unknownKind {
		for _, b := range p.bindings {
			at.Record(p.row(b, engine.OutcomeSkipped, unknownKindReason(req.Kind), 0))
		}
		return nil
	}
	obj, err := p.codec.internalObject(at)
	if err != nil {
		return err
	}
	old, err := p.codec.internalOldObject(at)
	if err != nil {
		return err
	}
	options, err := operationOptions(req)
	if err != nil {
		return err
	}
	annotations := newPolicyAnnotations()
	var first error
	changed := false
	for _, b := range p.bindings {
		changedByB, err := p.evaluate(ctx, at, b, obj, old, options, annotations)
		switch {
		case err != nil && p.mutating:
			annotations.publish(at)
			return err
		case err != nil:
			if first == nil {
				first = err
			}
		case changedByB:
			changed = true
		}
	}
	annotations.publish(at)
	if changed {
		out, err := p.codec.fromInternal(ctx, obj, req.Kind)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		at.SetObject(out)
	}
	return first
}

// evaluate runs the binding b on the request's internal objects, unless it does not run in this
// round, and records its row: inert, skipped when it does not match, else its outcome. It passes
// the binding's warnings and audit annotations on, returns its error, and reports whether a
// mutating binding changed obj.
func (p *policyPlugins) evaluate(ctx context.Context, at *engine.Attributes, b *policyBinding, obj, old, options runtime.Object, annotations *policyAnnotations) (changed bool, err error) {
	start := time.Now()
	if at.IsReinvoke() && !b.reinvocable {
		return false, nil // the plugin does not run it again: no row
	}
	if b.inert != "" {
		at.Record(p.row(b, engine.OutcomeInert, b.inert, 0))
		return false, nil
	}
	req := at.Request
	record := &annotatedAttributes{Attributes: admission.NewAttributesRecord(obj, old, req.Kind, req.Namespace, at.Name(), req.Resource, req.SubResource,
		admission.Operation(req.Operation), options, req.DryRun, admissionUser(ctx, req))}
	attrs := &reinvokingAttributes{annotatedAttributes: record, context: reinvocationContext{at}}
	if skip := p.matches(b, attrs); skip != "" {
		at.Record(p.row(b, engine.OutcomeSkipped, skip, 0))
		return false, nil
	}
	recorder := &warnings{}
	callCtx := requestContext(ctx, req, recorder)
	var before runtime.Object
	if p.mutating && obj != nil {
		before = obj.DeepCopyObject()
	}
	if p.mutating {
		err = b.admit(callCtx, attrs, p.interfaces)
	} else {
		err = b.plugin.(admission.ValidationInterface).Validate(callCtx, attrs, p.interfaces)
	}
	elapsed := time.Since(start)
	warned := recorder.list()
	for _, w := range warned {
		at.AddWarning(w)
	}
	for _, a := range record.annotations {
		annotations.add(b.policy, a[0], a[1])
	}
	switch {
	case err != nil:
		at.Record(p.row(b, engine.OutcomeOf(err), err.Error(), elapsed))
		return false, err
	case b.failClosed != nil:
		// Its warnings and audit annotations are the binding's own, already passed on.
		if closedErr := b.failClosed.Validate(requestContext(ctx, req, &warnings{}), attrs, p.interfaces); closedErr != nil {
			// The failing-closed plugin words the error as a denial; the binding did not deny.
			msg := closedErr.Error()
			if _, cause, ok := strings.Cut(msg, " denied request: "); ok {
				msg = cause
			}
			at.Record(p.row(b, engine.OutcomeFailedOpen, msg, elapsed))
			return false, nil
		}
		at.Record(p.row(b, engine.OutcomeAllowed, strings.Join(warned, "; "), elapsed))
		return false, nil
	case p.mutating && obj != nil && !semanticallyEqual(before, obj):
		at.Record(p.row(b, engine.OutcomePatched, "", elapsed))
		return true, nil
	default:
		at.Record(p.row(b, engine.OutcomeAllowed, strings.Join(warned, "; "), elapsed))
		return false, nil
	}
}

const (
	// schemaListingTimeout bounds the wait for a mutating policy plugin's first listing of the
	// API's schemas, as client-go bounds the wait for its informers.
	schemaListingTimeout = 10 * time.Second
	// schemaSettling is how long after that listing the plugin may still not know a schema it
	// lists: it records the listing a moment after it is answered.
	schemaSettling = time.Second
)

// admit calls the binding's mutating plugin. The plugin records the schemas it has listed a
// moment after the listing is answered (the first admission waits for the answer), and refuses
// a mutation whose kind it knows no schema of with ServiceUnavailable: a refusal in that moment
// is the plugin starting, not the cluster's answer, and the call is made again. The refusal comes
// before any mutation is applied, so the call is made again on the same object.
func (b *policyBinding) admit(ctx context.Context, attrs admission.Attributes, o admission.ObjectInterfaces) error {
	for {
		err := b.plugin.(admission.MutationInterface).Admit(ctx, attrs, o)
		if err == nil || !isSchemaNotKnown(err) || time.Since(b.schemas.listedAt) > schemaSettling {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// isSchemaNotKnown is the mutating policy plugin's refusal of a kind whose schema it does not
// know.
func isSchemaNotKnown(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !apierrors.IsServiceUnavailable(err) {
		return false
	}
	message := status.Status().Message
	return strings.HasPrefix(message, "Resource kind ") && strings.Contains(message, " not found. There can be a delay between when CustomResourceDefinitions are created")
}

// matches says why a binding does not apply to the request, or "" when it does: the policy's
// matchConstraints, then the binding's matchResources, as the plugin decides.
func (p *policyPlugins) matches(b *policyBinding, attrs admission.Attributes) string {
	ok, _, _, err := b.matcher.DefinitionMatches(attrs, p.interfaces, b.definition)
	if err != nil {
		return "" // the plugin reports the error under the failure policy
	}
	if !ok {
		return "the policy's matchConstraints do not match " + describeAttributes(attrs)
	}
	ok, err = b.matcher.BindingMatches(attrs, p.interfaces, b.bindingAccessor)
	if err != nil {
		return ""
	}
	if !ok {
		return "the binding's matchResources do not match " + describeAttributes(attrs)
	}
	return ""
}

func describeAttributes(a admission.Attributes) string {
	r := a.GetResource()
	resource := r.Resource
	if a.GetSubresource() != "" {
		resource += "/" + a.GetSubresource()
	}
	if r.Group != "" {
		resource += "." + r.Group
	}
	return fmt.Sprintf("%s %s", a.GetOperation(), resource)
}

func (p *policyPlugins) row(b *policyBinding, outcome engine.Outcome, reason string, elapsed time.Duration) engine.Row {
	return engine.Row{Name: b.policy, Binding: b.binding, Type: p.Type(), Outcome: outcome, Reason: reason, Duration: elapsed}
}

// policyAnnotations merges what a policy's bindings annotate, as the plugin does within one
// policy: distinct values of a key are joined with ", ". Other annotations (the Audit action's
// validation failure) are added as they come: the first value of a key stays.
type policyAnnotations struct {
	keys   []string
	values map[string][]string
	direct [][2]string
}

func newPolicyAnnotations() *policyAnnotations {
	return &policyAnnotations{values: map[string][]string{}}
}

func (a *policyAnnotations) add(policy, key, value string) {
	if !strings.HasPrefix(key, policy+"/") {
		a.direct = append(a.direct, [2]string{key, value})
		return
	}
	for _, v := range a.values[key] {
		if v == value {
			return
		}
	}
	if _, ok := a.values[key]; !ok {
		a.keys = append(a.keys, key)
	}
	a.values[key] = append(a.values[key], value)
}

func (a *policyAnnotations) publish(at *engine.Attributes) {
	for _, kv := range a.direct {
		at.AddAnnotation(kv[0], kv[1])
	}
	for _, key := range a.keys {
		at.AddAnnotation(key, strings.Join(a.values[key], ", "))
	}
}

// reinvokingAttributes are admission attributes whose reinvocation context lasts across the
// mutating phase's rounds, as the apiserver's does for a whole request.
type reinvokingAttributes struct {
	*annotatedAttributes
	context reinvocationContext
}

func (r *reinvokingAttributes) GetReinvocationContext() admission.ReinvocationContext {
	return r.context
}

// reinvocationContext is the apiserver's reinvocation context over the dispatcher's: a policy's
// change asks for a second round; what the plugin remembers between rounds is kept with the
// admission.
type reinvocationContext struct{ at *engine.Attributes }

type reinvocationKey string

func (r reinvocationContext) IsReinvoke() bool        { return r.at.IsReinvoke() }
func (r reinvocationContext) SetIsReinvoke()          {}
func (r reinvocationContext) ShouldReinvoke() bool    { return false }
func (r reinvocationContext) SetShouldReinvoke()      { r.at.RequireReinvocation() }
func (r reinvocationContext) Value(plugin string) any { return r.at.Value(reinvocationKey(plugin)) }
func (r reinvocationContext) SetValue(plugin string, v any) {
	r.at.SetValue(reinvocationKey(plugin), v)
}

// validatePolicy is kube-apiserver's validation of an admission policy or binding on create,
// with its message (422 Invalid).
func validatePolicy(obj runtime.Object) error {
	errs, kind, err := PolicyErrors(obj)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		accessor, _ := meta.Accessor(obj)
		return apierrors.NewInvalid(kind, accessor.GetName(), errs)
	}
	return nil
}

// PolicyErrors is kube-apiserver's validation of a ValidatingAdmissionPolicy,
// MutatingAdmissionPolicy or one of their bindings on create: the field errors it would answer
// with, and the object's kind. An object of another kind is an error.
func PolicyErrors(obj runtime.Object) (field.ErrorList, schema.GroupKind, error) {
	kube, _ := kubeScheme()
	typed, err := asTyped(obj)
	if err != nil {
		return nil, schema.GroupKind{}, err
	}
	typed = typed.DeepCopyObject()
	kube.Default(typed)
	kinds, _, err := kube.ObjectKinds(typed)
	if err != nil {
		return nil, schema.GroupKind{}, err
	}
	kind := kinds[0]
	internal, err := kube.ConvertToVersion(typed, schema.GroupVersion{Group: kind.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, kind.GroupKind(), err
	}
	switch p := internal.(type) {
	case *admissionregistration.ValidatingAdmissionPolicy:
		return policyvalidation.ValidateValidatingAdmissionPolicy(p), kind.GroupKind(), nil
	case *admissionregistration.ValidatingAdmissionPolicyBinding:
		return policyvalidation.ValidateValidatingAdmissionPolicyBinding(p), kind.GroupKind(), nil
	case *admissionregistration.MutatingAdmissionPolicy:
		return policyvalidation.ValidateMutatingAdmissionPolicy(p), kind.GroupKind(), nil
	case *admissionregistration.MutatingAdmissionPolicyBinding:
		return policyvalidation.ValidateMutatingAdmissionPolicyBinding(p), kind.GroupKind(), nil
	}
	return nil, kind.GroupKind(), fmt.Errorf("%s is not an admission policy or binding", kind.Kind)
}
