package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/internal/typedjson"
	"github.com/admitkit/admit/patch"
)

// Defaulter changes objects of type T on CREATE and UPDATE (other operations are allowed without
// calling it). It mutates obj in place and may return warnings. Returning an error denies the
// request (see StatusFromError), or fails it when the error is made by Fail.
//
// T is a pointer to an API type (*corev1.Pod) or *unstructured.Unstructured for custom resources.
type Defaulter[T runtime.Object] interface {
	Default(ctx context.Context, req *Request, obj T) (warnings []string, err error)
}

// DefaulterFunc adapts a function to Defaulter.
type DefaulterFunc[T runtime.Object] func(ctx context.Context, req *Request, obj T) ([]string, error)

// Default calls f.
func (f DefaulterFunc[T]) Default(ctx context.Context, req *Request, obj T) ([]string, error) {
	return f(ctx, req, obj)
}

// Validator checks objects of type T. Each method returns warnings and an error that denies the
// request (see StatusFromError), or fails it when made by Fail. On DELETE the object being deleted
// (the request's oldObject) is passed.
type Validator[T runtime.Object] interface {
	ValidateCreate(ctx context.Context, req *Request, obj T) (warnings []string, err error)
	ValidateUpdate(ctx context.Context, req *Request, oldObj, newObj T) (warnings []string, err error)
	ValidateDelete(ctx context.Context, req *Request, oldObj T) (warnings []string, err error)
}

// ConnectValidator is implemented by validators that also check CONNECT requests (exec, attach,
// port-forward, proxy). options is the options object the client sent (e.g. PodExecOptions).
// A Validator that does not implement it allows every CONNECT.
type ConnectValidator interface {
	ValidateConnect(ctx context.Context, req *Request, options *unstructured.Unstructured) (warnings []string, err error)
}

// DefaultingHandler returns a Handler that decodes the object into a T, lets d change it and answers with
// a lossless patch: only what d changed is patched, against the raw object the apiserver sent, so
// fields unknown to T are kept. Nothing changed means allowed with no patch.
func DefaultingHandler[T runtime.Object](d Defaulter[T]) Handler {
	newObject := objectFactory[T]()
	dec, typed := new(typedjson.Decoder), new(patch.Typed)
	info := typedInfo{objectType: reflect.TypeFor[T](), adapter: "DefaultingHandler", mutates: true, missing: isNilValue(d)}
	return typedHandler{info: info, admit: func(ctx context.Context, req *Request) Response {
		if info.missing {
			return Errored(fmt.Errorf("the DefaultingHandler for %s has no Defaulter", req.Kind.Kind))
		}
		if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
			return Allowed()
		}
		obj, raw, resp, ok := decodeObject(req, req.Object, "object", newObject, dec)
		if !ok {
			return resp
		}
		// The patch is what patch.Lossless makes of the object encoded before and after d ran;
		// patch.Typed computes it from a copy and the object, encoding only what changed.
		before := obj.DeepCopyObject()
		warnings, err := d.Default(ctx, req, obj)
		if err != nil {
			return StatusFromError(err, groupKind(req), objectName(req, obj)).WithWarnings(warnings...)
		}
		p, err := typed.Lossless(raw, before, obj)
		if err != nil {
			resp := encodedPatch(req, raw, before, obj)
			if resp.Outcome != OutcomeError {
				resp = resp.WithWarnings(warnings...)
			}
			return resp
		}
		return Patched(p).WithWarnings(warnings...)
	}}
}

// encodedPatch answers with the patch from the object's encodings before and after defaulting,
// or the error that stands in the way, in the words the handler has always used.
func encodedPatch(req *Request, raw []byte, before, after runtime.Object) Response {
	b, err := json.Marshal(before)
	if err != nil {
		return Errored(fmt.Errorf("encoding %s before defaulting: %w", req.Kind.Kind, err))
	}
	a, err := json.Marshal(after)
	if err != nil {
		return Errored(fmt.Errorf("encoding %s after defaulting: %w", req.Kind.Kind, err))
	}
	if bytes.Equal(b, a) {
		return Allowed()
	}
	p, err := patch.Lossless(raw, b, a)
	if err != nil {
		return Errored(fmt.Errorf("computing the patch for %s: %w", req.Kind.Kind, err))
	}
	return Patched(p)
}

// ValidatingHandler returns a Handler that decodes the object(s) into T and calls the Validator method
// for the operation: the new object on CREATE, old and new on UPDATE, the old object on DELETE,
// the options on CONNECT (only if v is a ConnectValidator).
func ValidatingHandler[T runtime.Object](v Validator[T]) Handler {
	newObject := objectFactory[T]()
	dec := new(typedjson.Decoder)
	info := typedInfo{objectType: reflect.TypeFor[T](), adapter: "ValidatingHandler", missing: isNilValue(v)}
	return typedHandler{info: info, admit: func(ctx context.Context, req *Request) Response {
		if info.missing {
			return Errored(fmt.Errorf("the ValidatingHandler for %s has no Validator", req.Kind.Kind))
		}
		var (
			warnings []string
			err      error
			subject  runtime.Object // the object the outcome is about, to name it in a denial
		)
		switch req.Operation {
		case admissionv1.Create:
			obj, _, resp, ok := decodeObject(req, req.Object, "object", newObject, dec)
			if !ok {
				return resp
			}
			subject = obj
			warnings, err = v.ValidateCreate(ctx, req, obj)
		case admissionv1.Update:
			obj, _, resp, ok := decodeObject(req, req.Object, "object", newObject, dec)
			if !ok {
				return resp
			}
			old, _, resp, ok := decodeObject(req, req.OldObject, "oldObject", newObject, dec)
			if !ok {
				return resp
			}
			subject = obj
			warnings, err = v.ValidateUpdate(ctx, req, old, obj)
		case admissionv1.Delete:
			old, _, resp, ok := decodeObject(req, req.OldObject, "oldObject", newObject, dec)
			if !ok {
				return resp
			}
			subject = old
			warnings, err = v.ValidateDelete(ctx, req, old)
		case admissionv1.Connect:
			cv, ok := any(v).(ConnectValidator)
			if !ok {
				return Allowed()
			}
			options, _, resp, ok := decodeObject(req, req.Object, "object", newUnstructured, dec)
			if !ok {
				return resp
			}
			warnings, err = cv.ValidateConnect(ctx, req, options)
		default:
			return badRequest(fmt.Sprintf("unsupported operation %q", req.Operation))
		}
		return StatusFromError(err, groupKind(req), objectName(req, subject)).WithWarnings(warnings...)
	}}
}

// typedInfo is what a typed adapter knows of itself, for Registry.Register to check the webhook
// it is registered in.
type typedInfo struct {
	// objectType is T.
	objectType reflect.Type
	// adapter is "DefaultingHandler" or "ValidatingHandler".
	adapter string
	// mutates is true for DefaultingHandler: its patches need a mutating webhook.
	mutates bool
	// missing is true when the Defaulter or Validator is nil.
	missing bool
}

// typedHandler is the Handler a typed adapter returns.
type typedHandler struct {
	info  typedInfo
	admit func(ctx context.Context, req *Request) Response
}

func (h typedHandler) Admit(ctx context.Context, req *Request) Response { return h.admit(ctx, req) }

// isNilValue reports whether v is nil or holds a nil pointer, map, func or channel: a Defaulter
// or Validator that would panic on its first call.
func isNilValue(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Interface, reflect.Slice:
		return rv.IsNil()
	}
	return false
}

// objectFactory returns a function allocating a new T. T is normally a pointer to a struct; an
// interface type such as runtime.Object gets *unstructured.Unstructured when that satisfies it.
func objectFactory[T runtime.Object]() func() (T, error) {
	var zero T
	typ := reflect.TypeFor[T]()
	switch {
	case typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Struct:
		elem := typ.Elem()
		return func() (T, error) { return reflect.New(elem).Interface().(T), nil }
	case typ.Kind() == reflect.Interface && reflect.TypeFor[*unstructured.Unstructured]().Implements(typ):
		return func() (T, error) { return any(&unstructured.Unstructured{}).(T), nil }
	default:
		return func() (T, error) {
			return zero, fmt.Errorf("cannot decode objects into %s: use a pointer to a struct or *unstructured.Unstructured", typ)
		}
	}
}

func newUnstructured() (*unstructured.Unstructured, error) { return &unstructured.Unstructured{}, nil }

// decodeObject decodes one object of the request. A missing or undecodable object is the caller's
// mistake (a webhook registered for the wrong kind, an old apiserver); it is answered with 400 so
// the failurePolicy decides, and the message names the field and the problem.
//
// dec decodes in one pass what it can decode exactly as decodeStrict does; the rest, and every
// error, is decoded again by decodeStrict into a fresh object.
func decodeObject[T runtime.Object](req *Request, ext runtime.RawExtension, field string, newObject func() (T, error), dec *typedjson.Decoder) (T, []byte, Response, bool) {
	var zero T
	raw := ext.Raw
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return zero, nil, badRequest(fmt.Sprintf("%s request for %s has no %s", req.Operation, req.Kind.Kind, field)), false
	}
	obj, err := newObject()
	if err != nil {
		return zero, nil, Errored(err), false
	}
	if dec.Decode(raw, obj) {
		return obj, raw, Response{}, true
	}
	if obj, err = newObject(); err != nil {
		return zero, nil, Errored(err), false
	}
	if err := decodeStrict(raw, obj); err != nil {
		return zero, nil, badRequest(fmt.Sprintf("decoding request.%s as %s: %v", field, reflect.TypeOf(obj).Elem().Name(), err)), false
	}
	return obj, raw, Response{}, true
}

// badRequest answers a request the handler cannot process with HTTP 400, so the failurePolicy decides.
func badRequest(message string) Response {
	return Response{Outcome: OutcomeError, Status: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: message,
	}}
}

// objectName names the object in a denial: the request's name, else the object's own (a request
// for an object created with generateName has no name yet during mutation).
func objectName(req *Request, obj runtime.Object) string {
	if req.Name != "" || obj == nil {
		return req.Name
	}
	if named, ok := obj.(interface{ GetName() string }); ok {
		return named.GetName()
	}
	return ""
}

func groupKind(req *Request) schema.GroupKind {
	return schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
}
