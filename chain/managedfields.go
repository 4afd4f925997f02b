package chain

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
)

// DefaultFieldManager names the writer in managedFields when the request's options name none:
// kube-apiserver takes the client's user agent, which an offline review does not have.
const DefaultFieldManager = "admit"

// fieldManagers are kube-apiserver's field managers, one per written kind and subresource: the
// handler records who wrote which fields (metadata.managedFields) before mutating admission.
// Built-in kinds are typed with client-go's copy of the API's schema; custom resources, whose
// schema the apiserver merges into its OpenAPI document, with the deduced type converter.
type fieldManagers struct {
	scheme   *runtime.Scheme
	builtin  managedfields.TypeConverter
	deduced  managedfields.TypeConverter
	mu       sync.Mutex
	managers map[fieldManagerKey]*managedfields.FieldManager
}

type fieldManagerKey struct {
	kind        schema.GroupVersionKind
	subresource string
}

func newFieldManagers(scheme *runtime.Scheme) *fieldManagers {
	return &fieldManagers{
		scheme:   scheme,
		builtin:  applyconfigurations.NewTypeConverter(resources.Types()),
		deduced:  managedfields.NewDeducedTypeConverter(),
		managers: map[fieldManagerKey]*managedfields.FieldManager{},
	}
}

// manager returns the field manager of kind's subresource; strategy gives the fields the
// subresource resets (a status update does not own the spec).
func (f *fieldManagers) manager(kind schema.GroupVersionKind, subresource string, strategy any, custom bool) (*managedfields.FieldManager, error) {
	key := fieldManagerKey{kind, subresource}
	f.mu.Lock()
	defer f.mu.Unlock()
	if m, ok := f.managers[key]; ok {
		return m, nil
	}
	var reset map[fieldpath.APIVersion]fieldpath.Filter
	if s, ok := strategy.(rest.ResetFieldsStrategy); ok {
		reset = fieldpath.NewExcludeFilterSetMap(s.GetResetFields())
	}
	var m *managedfields.FieldManager
	var err error
	if custom {
		m, err = managedfields.NewDefaultCRDFieldManager(f.deduced, unstructuredVersions{}, noDefaults{},
			unstructuredscheme.NewUnstructuredCreator(), kind, kind.GroupVersion(), subresource, reset)
	} else {
		converter := f.builtin
		if !f.knowsType(kind) {
			// The review kinds (SelfSubjectReview, TokenReview, ...) are not in client-go's copy
			// of the API's schema, which the apiserver's own schema has. Their objects are
			// flat enough that the fields deduced from the object are the same, and the field
			// manager's "[SHOULD NOT HAPPEN]" log on every write is avoided.
			converter = f.deduced
		}
		hub := schema.GroupVersion{Group: kind.Group, Version: runtime.APIVersionInternal}
		m, err = managedfields.NewDefaultFieldManager(converter, runtime.UnsafeObjectConvertor(f.scheme), f.scheme, f.scheme, kind, hub, subresource, reset)
	}
	if err != nil {
		return nil, fmt.Errorf("the field manager of %s: %w", kind, err)
	}
	f.managers[key] = m
	return m, nil
}

// knowsType reports whether the schema of built-in kinds has kind.
func (f *fieldManagers) knowsType(kind schema.GroupVersionKind) bool {
	obj, err := f.scheme.New(kind)
	if err != nil {
		return false
	}
	obj.GetObjectKind().SetGroupVersionKind(kind) // the converter finds the type by it
	_, err = f.builtin.ObjectToTyped(obj)
	return err == nil
}

// noDefaults is the defaulter of a field manager that only records updates: it defaults
// nothing.
type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}

// unstructuredVersions converts a custom resource between versions for its field manager, as
// the apiserver does for one whose CRD converts with strategy None: only apiVersion changes.
type unstructuredVersions struct{}

func (unstructuredVersions) Convert(in, out, _ any) error {
	from, ok := in.(*unstructured.Unstructured)
	to, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("converting %T to %T: only unstructured objects", in, out)
	}
	to.Object = from.DeepCopy().Object
	return nil
}

func (unstructuredVersions) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("converting %T: only unstructured objects", in)
	}
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("%s cannot be converted to %v", u.GroupVersionKind(), target)
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(gvk)
	return out, nil
}

func (unstructuredVersions) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return "", "", fmt.Errorf("field labels of %s are not converted", gvk)
}

// recordManager is the handler's field manager update before mutating admission: who writes
// which fields, in metadata.managedFields. live is the stored object (nil on CREATE).
func (c *codec) recordManager(req *engine.Request, obj, live runtime.Object, custom bool) (runtime.Object, error) {
	if c.fields == nil {
		return obj, nil
	}
	key := resourceKey{req.Resource.Group, req.Resource.Resource, req.SubResource}
	var strategy any
	if s, ok := c.strategies[key]; ok {
		strategy = s.update
		if req.Operation == admissionv1.Create && s.create != nil {
			strategy = s.create
		}
	}
	if custom {
		strategy = c.custom.strategyFor(req.Kind, req.SubResource)
	}
	m, err := c.fields.manager(req.Kind, req.SubResource, strategy, custom)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if live == nil {
		var creater runtime.ObjectCreater = c.scheme
		if custom {
			creater = unstructuredscheme.NewUnstructuredCreator()
		}
		if live, err = creater.New(req.Kind); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	recorded := m.UpdateNoErrors(live, obj, fieldManagerName(req, c.defaultManager))
	c.stampManagedFields(recorded, live)
	return recorded, nil
}

// stampManagedFields gives the managedFields entries this write recorded the chain's clock: the
// field manager stamps them with the wall clock, which would make two reviews of one object
// differ; the apiserver's entries carry the time of the write, as these then do.
func (c *codec) stampManagedFields(obj, live runtime.Object) {
	if c.now == nil {
		return
	}
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	before := map[string]*metav1.Time{}
	if liveMeta, err := meta.Accessor(live); err == nil {
		for _, e := range liveMeta.GetManagedFields() {
			before[managedFieldsKey(e)] = e.Time
		}
	}
	entries := objectMeta.GetManagedFields()
	now := metav1.NewTime(c.now().UTC().Truncate(time.Second))
	for i, e := range entries {
		if previous, ok := before[managedFieldsKey(e)]; ok && previous.Equal(e.Time) {
			continue
		}
		entries[i].Time = &now
	}
	objectMeta.SetManagedFields(entries)
}

func managedFieldsKey(e metav1.ManagedFieldsEntry) string {
	return e.Manager + "\x00" + string(e.Operation) + "\x00" + e.APIVersion + "\x00" + e.Subresource
}

// fieldManagerName is the request options' fieldManager, or the default.
func fieldManagerName(req *engine.Request, fallback string) string {
	var options struct {
		FieldManager string `json:"fieldManager"`
	}
	if len(req.Options) > 0 && json.Unmarshal(req.Options, &options) == nil && options.FieldManager != "" {
		return options.FieldManager
	}
	return fallback
}
