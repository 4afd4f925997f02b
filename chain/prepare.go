package chain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/patch"
)

// beginCreate and beginUpdate are a REST storage's hooks before a write is validated: the
// Service storage allocates cluster IPs and node ports there. The returned function ends the
// allocation.
type (
	beginCreate func(ctx context.Context, obj runtime.Object, options *metav1.CreateOptions) (registry.FinishFunc, error)
	beginUpdate func(ctx context.Context, obj, old runtime.Object, options *metav1.UpdateOptions) (registry.FinishFunc, error)
)

// preparer is what kube-apiserver's generic registry store does between mutating and validating
// admission, with each resource's own strategy: on CREATE the system metadata (uid, creation
// timestamp), the generated name, the storage's begin-create hook, then rest.BeforeCreate
// (PrepareForCreate, Validate, the common metadata validation, warnings, Canonicalize); on UPDATE
// the resource version check, then rest.BeforeUpdate (generation kept, PrepareForUpdate,
// ValidateUpdate, warnings, Canonicalize). The kind's validation errors reject the request as the
// apiserver does, with 422 Invalid.
type preparer struct {
	codec      *codec
	custom     *customResources
	strategies map[resourceKey]strategy
	begin      map[resourceKey]beginCreate
	beginEdit  map[resourceKey]beginUpdate
	clock      clock
	// allocating serializes the storage's allocations (cluster IPs, node ports), so that each
	// review allocates from the same free range whatever runs beside it.
	allocating sync.Mutex
	// serviceCIDR is where Services' cluster IPs come from, for the result.
	serviceCIDR string
}

// clock gives the system metadata of a created object: its creation time and uid.
type clock struct {
	now    func() time.Time
	newUID func(req *engine.Request) string
}

// fillSystemFields is rest.FillObjectMetaSystemFields with the injected clock.
func (c clock) fillSystemFields(objectMeta metav1.Object, req *engine.Request) {
	objectMeta.SetCreationTimestamp(metav1.NewTime(c.now()))
	objectMeta.SetUID(types.UID(c.newUID(req)))
}

func (p *preparer) Name() string         { return "registry" }
func (p *preparer) Type() engine.RowType { return engine.TypePreparation }

// Prepare implements engine.Preparer.
func (p *preparer) Prepare(ctx context.Context, at *engine.Attributes) error {
	start := p.clock.now()
	before := at.Object()
	if err := p.prepare(ctx, at); err != nil || at.Recorded() {
		return err
	}
	r := engine.Row{Name: p.Name(), Type: p.Type(), Outcome: engine.OutcomeAllowed, Duration: p.clock.now().Sub(start)}
	if changed := changedPaths(before, at.Object()); len(changed) > 0 {
		r.Outcome, r.Reason = engine.OutcomePatched, "set "+joinNames(changed)
		if at.Request.Resource.GroupResource() == (schema.GroupResource{Resource: "services"}) && slices.Contains(changed, "spec.clusterIP") {
			r.Reason = "cluster IP allocated from " + p.serviceCIDR + "; " + r.Reason
		}
	}
	at.Record(r)
	return nil
}

// changedPaths names the fields that differ between two objects, two levels deep at most.
func changedPaths(before, after []byte) []string {
	ops, err := patch.Diff(before, after)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, op := range ops {
		tokens, err := patch.PointerTokens(op.Path)
		if err != nil {
			continue
		}
		if len(tokens) > 2 {
			tokens = tokens[:2]
		}
		name := strings.Join(tokens, ".")
		if !seen[name] && name != "" {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// prepare is Prepare's work.
func (p *preparer) prepare(ctx context.Context, at *engine.Attributes) error {
	req := at.Request
	key := resourceKey{req.Resource.Group, req.Resource.Resource, req.SubResource}
	if req.SubResource == "scale" && p.codec.scales.Has(req.Resource.GroupResource()) {
		return p.prepareScale(ctx, at)
	}
	class := p.codec.classify(req.Kind)
	if class == customKind {
		return p.custom.prepare(ctx, at, p.clock)
	}
	s, ok := p.strategies[key]
	if !ok || class != builtinKind {
		at.Record(engine.Row{Name: p.Name(), Type: p.Type(), Outcome: engine.OutcomeSkipped,
			Reason: fmt.Sprintf("kube-apiserver's registry has no strategy admit knows for %s", describeResource(key))})
		return nil
	}
	obj, err := p.codec.toInternal(at.Object(), req.Kind)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	recorder := &warnings{}
	ctx = requestContext(ctx, req, recorder)
	switch req.Operation {
	case admissionv1.Create:
		if s.create == nil {
			return apierrors.NewMethodNotSupported(req.Resource.GroupResource(), "create")
		}
		if err := p.prepareCreate(ctx, key, s.create, obj, req); err != nil {
			return err
		}
	case admissionv1.Update:
		if s.update == nil {
			return apierrors.NewMethodNotSupported(req.Resource.GroupResource(), "update")
		}
		old, err := p.codec.toInternal(at.OldObject(), req.Kind)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		if err := checkResourceVersion(s.update, obj, old, req); err != nil {
			return err
		}
		if begin := p.beginEdit[key]; begin != nil {
			p.allocating.Lock()
			defer p.allocating.Unlock() // after finish gives the allocation back
			finish, err := begin(ctx, obj, old, &metav1.UpdateOptions{DryRun: dryRun(req)})
			if err != nil {
				return err
			}
			defer finish(ctx, false)
		}
		if err := rest.BeforeUpdate(s.update, ctx, obj, old); err != nil {
			return err
		}
	}
	prepared, err := p.codec.fromInternal(ctx, obj, req.Kind)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	at.SetObject(prepared)
	recorder.passTo(at)
	return nil
}

// prepareCreate is the generic store's create up to validating admission.
func (p *preparer) prepareCreate(ctx context.Context, key resourceKey, s rest.RESTCreateStrategy, obj runtime.Object, req *engine.Request) error {
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	p.clock.fillSystemFields(objectMeta, req)
	if objectMeta.GetGenerateName() != "" && objectMeta.GetName() == "" {
		objectMeta.SetName(s.GenerateName(objectMeta.GetGenerateName()))
	}
	if begin := p.begin[key]; begin != nil {
		p.allocating.Lock()
		defer p.allocating.Unlock() // after finish gives the allocation back
		finish, err := begin(ctx, obj, &metav1.CreateOptions{DryRun: dryRun(req)})
		if err != nil {
			return err
		}
		// Nothing is stored: the allocation is given back, as a failed create gives it back.
		defer finish(ctx, false)
	}
	return rest.BeforeCreate(s, ctx, obj)
}

// checkResourceVersion is the generic store's check before an update: an update without a
// resource version is unconditional where the strategy allows it, and one with a resource version
// must name the stored one.
func checkResourceVersion(s rest.RESTUpdateStrategy, obj, old runtime.Object, req *engine.Request) error {
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return nil
	}
	stored := oldMeta.GetResourceVersion()
	switch given := objectMeta.GetResourceVersion(); {
	case given == "" && s.AllowUnconditionalUpdate():
		objectMeta.SetResourceVersion(stored)
	case given == "":
		kind := schema.GroupKind{Group: req.Resource.Group, Kind: req.Resource.Resource}
		return apierrors.NewInvalid(kind, objectMeta.GetName(), field.ErrorList{field.Invalid(field.NewPath("metadata").Child("resourceVersion"), int64(0), "must be specified for an update")})
	case given != stored:
		return apierrors.NewConflict(req.Resource.GroupResource(), objectMeta.GetName(), fmt.Errorf(registry.OptimisticLockErrorMsg))
	}
	return nil
}

// requestContext is the request context the registry code reads: namespace, user, request info
// and a recorder for the warnings it adds.
func requestContext(ctx context.Context, req *engine.Request, recorder warning.Recorder) context.Context {
	ctx = genericapirequest.WithUser(genericapirequest.WithNamespace(ctx, req.Namespace), admissionUser(ctx, req))
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: strings.ToLower(string(req.Operation)),
		APIPrefix: apiPrefix(req.Resource.Group), APIGroup: req.Resource.Group, APIVersion: req.Resource.Version,
		Namespace: req.Namespace, Resource: req.Resource.Resource, Subresource: req.SubResource, Name: req.Name,
	})
	return warning.WithWarningRecorder(ctx, recorder)
}

func apiPrefix(group string) string {
	if group == "" {
		return "api"
	}
	return "apis"
}

func dryRun(req *engine.Request) []string {
	if req.DryRun {
		return []string{metav1.DryRunAll}
	}
	return nil
}

func describeResource(k resourceKey) string {
	r := schema.GroupResource{Group: k.group, Resource: k.resource}.String()
	if k.subresource != "" {
		r += "/" + k.subresource
	}
	return r
}

// warnings collects the warnings registry code adds to a request's context.
type warnings struct {
	mu    sync.Mutex
	texts []string
}

func (w *warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.texts = append(w.texts, text)
}

// passTo hands the warnings to the admission, as the apiserver adds them to its response.
func (w *warnings) passTo(at *engine.Attributes) {
	for _, text := range w.list() {
		at.AddWarning(text)
	}
}

func (w *warnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.texts...)
}
