package chain

import (
	"context"
	"encoding/json"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
)

// The internal version of objects: what the built-in plugins take, converted from and back to
// the admission's JSON, and remembered within one admission so that it is converted once.

// toInternal reads an object already decoded and defaulted (JSON in kind's version) into the
// internal version, without defaulting it again.
func (c *codec) toInternal(data []byte, kind schema.GroupVersionKind) (runtime.Object, error) {
	versioned, err := c.decodePlain(data, kind)
	if err != nil {
		return nil, err
	}
	internal, err := c.scheme.New(schema.GroupVersion{Group: kind.Group, Version: runtime.APIVersionInternal}.WithKind(kind.Kind))
	if err != nil {
		return nil, err
	}
	if err := c.scheme.Convert(versioned, internal, nil); err != nil {
		return nil, err
	}
	return internal, nil
}

// fromInternal converts an internal object to kind's version and encodes it as the webhook
// plugin does. The encoding is remembered with a copy of the internal object. A custom resource
// (unstructured) is encoded as it is.
func (c *codec) fromInternal(ctx context.Context, obj runtime.Object, kind schema.GroupVersionKind) (json.RawMessage, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return json.Marshal(u.Object)
	}
	versioned, err := c.scheme.ConvertToVersion(obj, kind.GroupVersion())
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(versioned)
	if err != nil {
		return nil, err
	}
	internals(ctx).put(out, obj.DeepCopyObject())
	return out, nil
}

// internalObjects is what the in-process steps share in one admission: the internal object of
// the JSON last seen, so that consecutive plugins decode it once.
type internalObjects struct {
	json   string
	object runtime.Object
}

// internalObject is the admission's object as the plugins take it: the internal version for a
// built-in kind, an unstructured object for a custom resource; nil when there is none.
func (c *codec) internalObject(at *engine.Attributes) (runtime.Object, error) {
	data := at.Object()
	if len(data) == 0 || at.Request.Operation == admissionv1.Connect {
		return nil, nil
	}
	if cached, ok := at.Value(internalObjects{}).(*internalObjects); ok && cached.json == string(data) {
		return cached.object, nil
	}
	obj, err := c.pluginObject(data, at.Request.Kind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	c.rememberInternal(at, data, obj)
	return obj, nil
}

// internalOldObject is the old object as the plugins take it.
func (c *codec) internalOldObject(at *engine.Attributes) (runtime.Object, error) {
	if len(at.OldObject()) == 0 {
		return nil, nil
	}
	obj, err := c.pluginObject(at.OldObject(), at.Request.Kind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return obj, nil
}

// rememberInternal keeps obj as the internal object of data for the admission's next plugin.
func (c *codec) rememberInternal(at *engine.Attributes, data []byte, obj runtime.Object) {
	at.SetValue(internalObjects{}, &internalObjects{json: string(data), object: obj})
}

// pluginObject decodes an object for the plugins.
func (c *codec) pluginObject(data []byte, kind schema.GroupVersionKind) (runtime.Object, error) {
	if c.builtin(kind) {
		return c.toInternal(data, kind)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return u, nil
}

// internalCache maps the objects an admission encoded to the internal objects they were encoded
// from: the apiserver converts for a webhook of another version from its internal object, and a
// conversion from the encoding instead can differ (an autoscaling/v1 HPA's metrics annotations
// round-trip to values the internal object does not have). It lasts one admission
// (engine.AdmissionState), so that no admission's result depends on another's.
type internalCache struct {
	mu      sync.Mutex
	objects map[string]runtime.Object
}

// internalsKey keeps an admission's internalCache.
type internalsKey struct{}

// internals is the internal objects of the admission ctx belongs to.
func internals(ctx context.Context) *internalCache {
	return engine.AdmissionState(ctx, internalsKey{}, func() any {
		return &internalCache{objects: map[string]runtime.Object{}}
	}).(*internalCache)
}

func (c *internalCache) put(encoded []byte, obj runtime.Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.objects[string(encoded)] = obj
}

// get returns a copy of the internal object encoded as encoded, or nil.
func (c *internalCache) get(encoded []byte) runtime.Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	if obj, ok := c.objects[string(encoded)]; ok {
		return obj.DeepCopyObject()
	}
	return nil
}
