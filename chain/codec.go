package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	runtimejson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/endpoints/handlers"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/jsonscan"
	"github.com/admitkit/admit/internal/typedjson"
	"github.com/admitkit/admit/patch"
)

// codec reads and writes built-in objects as kube-apiserver does, with its scheme: the request
// body decoded by the handler's decoder (strict field checks, defaulting, conversion to the
// internal version), patched objects decoded into the webhook's version and defaulted, and
// conversions between versions through the internal one. Kinds the scheme does not know are
// custom resources (see customResources) or passed on as they are.
type codec struct {
	scheme *runtime.Scheme
	codecs serializer.CodecFactory
	// plain decodes JSON into a Go type without defaulting or converting, as the webhook plugin
	// decodes a patched object.
	plain *runtimejson.Serializer
	// onePass decodes what plain would, faster, for objects of the common shape.
	onePass *typedjson.Decoder
	custom  *customResources
	// scales read the scale subresource of the resources that have one.
	scales *Scales
	// now stamps the managedFields a write records; nil keeps the field manager's wall clock.
	now func() time.Time
	// fields record managedFields, with the strategies' reset fields and defaultManager as the
	// writer when the request names none.
	fields         *fieldManagers
	strategies     map[resourceKey]strategy
	defaultManager string
}

func newCodec(custom *customResources, scales *Scales, strategies map[resourceKey]strategy, defaultManager string) *codec {
	scheme, codecs := kubeScheme()
	return &codec{
		scheme: scheme, codecs: codecs, custom: custom, scales: scales,
		fields: newFieldManagers(scheme), strategies: strategies, defaultManager: defaultManager,
		plain:   runtimejson.NewSerializerWithOptions(runtimejson.DefaultMetaFactory, scheme, scheme, runtimejson.SerializerOptions{}),
		onePass: new(typedjson.Decoder),
	}
}

// kindClass is what admit knows of a kind, which decides how every step reads its objects.
type kindClass int

const (
	// unknownKind is neither built in nor of a CRD given: its objects pass through as JSON, and
	// the steps that need to read them are skipped, saying why (unknownKindReason).
	unknownKind kindClass = iota
	// builtinKind is one of the scheme's: Kubernetes' Go types, strategies and plugins.
	builtinKind
	// customKind is a custom resource of a CRD given: its schema, defaults and conversion.
	customKind
)

// classify says what admit knows of kind. It is the one place that decides it.
func (c *codec) classify(kind schema.GroupVersionKind) kindClass {
	switch {
	case c.scheme.Recognizes(kind):
		return builtinKind
	case c.custom.knows(kind):
		return customKind
	}
	return unknownKind
}

// builtin reports whether kind is one of the scheme's (a built-in kind).
func (c *codec) builtin(kind schema.GroupVersionKind) bool { return c.classify(kind) == builtinKind }

// unknownKindReason is the row reason of a step skipped because admit cannot read the kind.
func unknownKindReason(kind schema.GroupVersionKind) string {
	return "admit knows neither the kind nor a CRD of " + kind.String()
}

// Decode implements engine.Codec.
func (c *codec) Decode(ctx context.Context, req *engine.Request) (*engine.Decoded, error) {
	if req.SubResource == "scale" && len(req.Parent) > 0 && c.scales.Has(req.Resource.GroupResource()) {
		// The scale handler reads the old Scale from the stored parent, defaulted.
		stored, err := c.storedParent(ctx, req)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		old, err := c.scales.Read(req.Resource.GroupResource(), stored)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		scaled := *req
		scaled.OldObject, req = old, &scaled
	}
	switch c.classify(req.Kind) {
	case customKind:
		return c.decodeCustom(req)
	case unknownKind:
		return &engine.Decoded{Object: req.Object, OldObject: req.OldObject}, nil
	}
	out := &engine.Decoded{Object: req.Object}
	var old runtime.Object
	if len(req.OldObject) > 0 {
		var err error
		if old, err = c.decodeStored(req.OldObject, req.Kind); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("decoding the old object: %w", err))
		}
		if objectMeta, err := meta.Accessor(old); err == nil {
			storedVersion(objectMeta)
		}
		if out.OldObject, err = c.fromInternal(ctx, old, req.Kind); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	if len(req.Object) > 0 && req.Operation != admissionv1.Connect {
		obj, warnings, err := c.decodeRequestObject(req)
		if err != nil {
			return nil, err
		}
		if obj, err = c.recordManager(req, obj, old, false); err != nil {
			return nil, err
		}
		if out.Object, err = c.fromInternal(ctx, obj, req.Kind); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		out.Warnings = warnings
	}
	return out, nil
}

// decodeCustom is Decode for a custom resource.
func (c *codec) decodeCustom(req *engine.Request) (*engine.Decoded, error) {
	obj, old, warnings, err := c.custom.decode(req)
	if err != nil {
		return nil, err
	}
	out := &engine.Decoded{Object: req.Object, Warnings: warnings}
	if old != nil {
		if out.OldObject, err = json.Marshal(old.Object); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	if obj != nil {
		var live runtime.Object
		if old != nil {
			live = old
		}
		recorded, err := c.recordManager(req, obj, live, true)
		if err != nil {
			return nil, err
		}
		if out.Object, err = json.Marshal(recorded.(*unstructured.Unstructured).Object); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	return out, nil
}

// decodeRequestObject is the create and update handlers' reading of the body, up to mutating
// admission: the decoder to the internal version (defaulting on the way), the field validation
// directive, the API version check, system metadata wiped on CREATE, the namespace reconciled
// with the request's, and duplicate owner references dropped with a warning.
func (c *codec) decodeRequestObject(req *engine.Request) (runtime.Object, []string, error) {
	directive, err := fieldValidation(req)
	if err != nil {
		return nil, nil, err
	}
	info, ok := runtime.SerializerInfoForMediaType(c.codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		return nil, nil, apierrors.NewInternalError(fmt.Errorf("no JSON serializer"))
	}
	decodeWith := info.Serializer
	if directive == metav1.FieldValidationWarn || directive == metav1.FieldValidationStrict {
		decodeWith = info.StrictSerializer
	}
	internal := schema.GroupVersion{Group: req.Kind.Group, Version: runtime.APIVersionInternal}
	into, err := c.scheme.New(internal.WithKind(req.Kind.Kind))
	if err != nil {
		return nil, nil, apierrors.NewInternalError(err)
	}
	defaultKind := req.Kind
	obj, gvk, err := c.codecs.DecoderToVersion(decodeWith, internal).Decode(req.Object, &defaultKind, into)
	var warnings []string
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && obj != nil && directive == metav1.FieldValidationWarn:
			for _, e := range strictErr.Errors() {
				warnings = append(warnings, e.Error())
			}
		default:
			return nil, nil, decodeError(req.Kind, gvk, into, err)
		}
	}
	if gvk.GroupVersion() != req.Kind.GroupVersion() {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), req.Kind.GroupVersion()))
	}
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return obj, warnings, nil // no metadata: nothing more the handler does
	}
	if req.Operation == admissionv1.Create {
		rest.WipeObjectMetaSystemFields(objectMeta)
	}
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForResource(req.Namespace, req.Resource), objectMeta); err != nil {
		return nil, nil, err
	}
	if refs, duplicates := dedupOwnerReferences(objectMeta.GetOwnerReferences()); len(duplicates) > 0 {
		warnings = append(warnings, duplicateOwnerReferencesWarning(duplicates))
		objectMeta.SetOwnerReferences(refs)
	}
	return obj, warnings, nil
}

// storedVersion gives an old object without a resource version the one every stored object
// has: an old object read from a file instead of the storage may lack it, and an UPDATE must
// name the version it replaces (the registry copies it into the new object when the client sent
// none).
func storedVersion(objectMeta metav1.Object) {
	if objectMeta.GetResourceVersion() == "" {
		objectMeta.SetResourceVersion("1")
	}
}

// decodeError is the handler's 400 for a body that does not decode.
func decodeError(kind schema.GroupVersionKind, gvk *schema.GroupVersionKind, into runtime.Object, err error) error {
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, kind.Kind, err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v", kind.Kind, err))
}

// fieldValidation reads the request's field validation directive; the apiserver's default is
// Warn.
func fieldValidation(req *engine.Request) (string, error) {
	if len(req.Options) == 0 {
		return metav1.FieldValidationWarn, nil
	}
	var options struct {
		FieldValidation string `json:"fieldValidation"`
	}
	if err := json.Unmarshal(req.Options, &options); err != nil {
		return "", apierrors.NewBadRequest(fmt.Sprintf("decoding the request options: %v", err))
	}
	switch options.FieldValidation {
	case "":
		return metav1.FieldValidationWarn, nil
	case metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict:
		return options.FieldValidation, nil
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("fieldValidation must be one of %q, %q or %q, got %q",
		metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict, options.FieldValidation))
}

// decodeStored reads an object as the storage returns it: decoded (leniently) and defaulted into
// the internal version.
func (c *codec) decodeStored(data []byte, kind schema.GroupVersionKind) (runtime.Object, error) {
	info, _ := runtime.SerializerInfoForMediaType(c.codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	internal := schema.GroupVersion{Group: kind.Group, Version: runtime.APIVersionInternal}
	obj, _, err := c.codecs.DecoderToVersion(info.Serializer, internal).Decode(data, &kind, nil)
	return obj, err
}

// decodePlain decodes JSON into kind's Go type, without defaults or conversion, as the webhook
// plugin's serializer does. It runs for every object the chain reads, several times per
// admission, so an object of the common shape is decoded in one pass (decodeOnePass); the
// serializer decodes every other, and gives every error its text.
func (c *codec) decodePlain(data []byte, kind schema.GroupVersionKind) (runtime.Object, error) {
	into, err := c.scheme.New(kind)
	if err != nil {
		return nil, err
	}
	if c.decodeOnePass(data, kind, into) {
		return into, nil
	}
	// A refused one-pass decode may have left part of the input in into.
	if into, err = c.scheme.New(kind); err != nil {
		return nil, err
	}
	obj, _, err := c.plain.Decode(data, nil, into)
	return obj, err
}

// decodeOnePass decodes data into into, a new object of kind, and reports whether the result
// is the serializer's. internal/typedjson decodes as sigs.k8s.io/json does, or refuses. The
// serializer also reads apiVersion and kind with encoding/json, whose names match regardless
// of case, and decodes into another type when they name one: the one-pass decode stands only
// for an object that names kind itself under the exact names, and under no other spelling of
// them.
func (c *codec) decodeOnePass(data []byte, kind schema.GroupVersionKind, into runtime.Object) bool {
	if !c.onePass.Decode(data, into) {
		return false
	}
	if into.GetObjectKind().GroupVersionKind() != kind {
		return false
	}
	s := jsonscan.Scanner{Data: data}
	return s.Members(func(key []byte) bool {
		if (bytes.EqualFold(key, []byte("apiVersion")) && string(key) != "apiVersion") ||
			(bytes.EqualFold(key, []byte("kind")) && string(key) != "kind") {
			return false
		}
		return s.SkipValue()
	})
}

// Patched implements engine.Codec: what the mutating webhook plugin does with a patched
// object. The apiserver compares the decoded objects before defaulting the new one.
func (c *codec) Patched(_ context.Context, kind schema.GroupVersionKind, before, patched json.RawMessage) (json.RawMessage, bool, error) {
	switch c.classify(kind) {
	case customKind:
		return c.custom.patched(kind, before, patched)
	case unknownKind:
		return patched, !jsonEqual(before, patched), nil
	}
	previous, err := c.decodePlain(before, kind)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	next, err := c.decodePlain(patched, kind)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	changed := !semanticallyEqual(previous, next)
	c.scheme.Default(next)
	out, err := json.Marshal(next)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	return out, changed, nil
}

// Stored implements engine.Codec: the object encoded in its storage version and decoded back
// with defaults, as the storage returns it to the handler (defaults that depend on fields the
// registry set, such as a Job's labels from its template, appear only then).
func (c *codec) Stored(ctx context.Context, req *engine.Request, object json.RawMessage) (json.RawMessage, error) {
	if req.SubResource == "scale" {
		// The scale handler answers with the stored parent's Scale: what the preparation made.
		return object, nil
	}
	switch c.classify(req.Kind) {
	case customKind:
		return c.custom.stored(ctx, req.Kind, object)
	case unknownKind:
		return object, nil
	}
	internal := internals(ctx).get(object)
	if internal == nil {
		var err error
		if internal, err = c.toInternal(object, req.Kind); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	storageKind := req.Kind
	if versions := c.scheme.PrioritizedVersionsForGroup(req.Kind.Group); len(versions) > 0 {
		storageKind = versions[0].WithKind(req.Kind.Kind)
	}
	encoded, err := c.fromInternal(ctx, internal, storageKind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	read, err := c.decodeStored(encoded, storageKind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, err := c.fromInternal(ctx, read, req.Kind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}

// Convert implements engine.Converter: an object converted to another version of its kind
// through the internal version, as the apiserver converts for a webhook matched by an
// equivalent resource (from its internal object) and back (a patched object into the internal
// one). Custom resources convert as their CRD says.
func (c *codec) Convert(ctx context.Context, object json.RawMessage, to schema.GroupVersionKind) (json.RawMessage, error) {
	if !c.builtin(to) {
		return c.custom.convert(ctx, object, to)
	}
	internal := internals(ctx).get(object)
	if internal == nil {
		versioned, from, err := c.codecs.UniversalDeserializer().Decode(object, nil, nil)
		if err != nil {
			return nil, err
		}
		// The internal version of the object's own group: events.k8s.io and core Events share
		// one internal type, reached from each group's versions.
		if internal, err = c.scheme.ConvertToVersion(versioned, schema.GroupVersion{Group: from.Group, Version: runtime.APIVersionInternal}); err != nil {
			return nil, err
		}
	}
	return c.fromInternal(ctx, internal, to)
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(x, y json.RawMessage) bool {
	if string(x) == string(y) {
		return true
	}
	ops, err := patch.Diff(x, y)
	return err == nil && len(ops) == 0
}

// duplicateOwnerReferencesWarning is the handler's warning about dropped owner references.
func duplicateOwnerReferencesWarning(uids []string) string {
	return fmt.Sprintf(handlers.DuplicateOwnerReferencesWarningFormat, strings.Join(uids, ", "))
}

// dedupOwnerReferences drops owner references equal to an earlier one, as the apiserver's
// handler does, and returns the UIDs of those dropped.
func dedupOwnerReferences(refs []metav1.OwnerReference) ([]metav1.OwnerReference, []string) {
	seen := map[types.UID]bool{}
	var kept []metav1.OwnerReference
	var duplicates []string
	for _, ref := range refs {
		if seen[ref.UID] && slices.ContainsFunc(kept, func(k metav1.OwnerReference) bool { return apiequality.Semantic.DeepEqual(k, ref) }) {
			duplicates = append(duplicates, string(ref.UID))
			continue
		}
		seen[ref.UID] = true
		kept = append(kept, ref)
	}
	return kept, duplicates
}
