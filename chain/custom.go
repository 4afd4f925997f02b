package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimejson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/admitkit/admit/engine"
)

// customResources is how the apiextensions apiserver reads and stores the custom resources of
// the CustomResourceDefinitions it is given: structural pruning of unknown fields (with a warning
// for each, or an error with fieldValidation Strict), schema defaults on decoding and after
// every webhook's patch (without pruning), the CRD's conversion between versions, and the
// custom resource strategy (generation, status, schema and CEL validation) before validating
// admission.
type customResources struct {
	versions  map[schema.GroupVersionKind]*customVersion
	converter *Converter
	typer     runtime.ObjectTyper
}

// customVersion is what the apiextensions apiserver serves for one version of a CRD.
type customVersion struct {
	crd *apiextensionsv1.CustomResourceDefinition
	// structural is nil when the CRD preserves unknown fields and has no schema.
	structural      *structuralschema.Structural
	preserveUnknown bool
	strategy        createUpdateStrategy
	status          createUpdateStrategy
}

func newCustomResources(crds []*apiextensionsv1.CustomResourceDefinition, conv Conversion) (*customResources, error) {
	converter, err := NewConverter(crds, conv)
	if err != nil {
		return nil, err
	}
	c := &customResources{versions: map[schema.GroupVersionKind]*customVersion{}, converter: converter, typer: unstructuredscheme.NewUnstructuredObjectTyper()}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			version, err := c.serve(crd, v)
			if err != nil {
				return nil, fmt.Errorf("CustomResourceDefinition %q version %s: %w", crd.Name, v.Name, err)
			}
			c.versions[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = version
		}
	}
	return c, nil
}

// serve builds what the apiextensions apiserver builds for one version: the structural schema
// with its defaults, the schema validators and the strategies.
func (c *customResources) serve(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) (*customVersion, error) {
	out := &customVersion{crd: crd, preserveUnknown: crd.Spec.PreserveUnknownFields}
	validation, err := apihelpers.GetSchemaForVersion(crd, v.Name)
	if err != nil {
		return nil, err
	}
	var props *apiextensionsinternal.JSONSchemaProps
	if validation != nil {
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(validation, internal, nil); err != nil {
			return nil, err
		}
		props = internal.OpenAPIV3Schema
		s, err := structuralschema.NewStructural(props)
		if err != nil && !crd.Spec.PreserveUnknownFields {
			return nil, fmt.Errorf("the schema is not structural: %w", err)
		}
		if err == nil {
			s = s.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				return nil, fmt.Errorf("pruning the schema's defaults: %w", err)
			}
			out.structural = s
		}
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, err
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
	var status *apiextensionsinternal.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	var scale *apiextensionsinternal.CustomResourceSubresourceScale
	subresources, err := apihelpers.GetSubresourcesForVersion(crd, v.Name)
	if err != nil {
		return nil, err
	}
	if subresources != nil && subresources.Status != nil {
		status = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceStatus_To_apiextensions_CustomResourceSubresourceStatus(subresources.Status, status, nil); err != nil {
			return nil, err
		}
		if props != nil && props.Properties != nil {
			if statusSchema, ok := props.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
					return nil, err
				}
			}
		}
	}
	if subresources != nil && subresources.Scale != nil {
		scale = &apiextensionsinternal.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scale, nil); err != nil {
			return nil, err
		}
	}
	strategy := customresource.NewStrategy(c.typer, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, kind, ordered(validator), ordered(statusValidator),
		out.structural, status, scale, v.SelectableFields)
	out.strategy = strategy
	if status != nil {
		out.status = customresource.NewStatusStrategy(strategy)
	}
	return out, nil
}

func (c *customResources) knows(kind schema.GroupVersionKind) bool {
	return c != nil && c.versions[kind] != nil
}

// decode is the custom resource handler's reading of a request: the body decoded, coerced and
// pruned (unknown fields become warnings, or an error with fieldValidation Strict), defaulted;
// the old object as the storage reads it (pruned, defaulted). Either is nil when the request
// has none.
func (c *customResources) decode(req *engine.Request) (obj, old *unstructured.Unstructured, warnings []string, err error) {
	v := c.versions[req.Kind]
	if len(req.OldObject) > 0 {
		old = &unstructured.Unstructured{}
		if err := old.UnmarshalJSON(req.OldObject); err != nil {
			return nil, nil, nil, apierrors.NewInternalError(fmt.Errorf("decoding the old object: %w", err))
		}
		if _, err := v.coerce(old, false, true); err != nil {
			return nil, nil, nil, apierrors.NewInternalError(fmt.Errorf("decoding the old object: %w", err))
		}
		v.defaultObject(old)
		storedVersion(old)
	}
	if len(req.Object) > 0 && req.Operation != admissionv1.Connect {
		directive, err := fieldValidation(req)
		if err != nil {
			return nil, nil, nil, err
		}
		if obj, warnings, err = v.decodeBody(req, directive); err != nil {
			return nil, nil, nil, err
		}
	}
	return obj, old, warnings, nil
}

// strategyFor is the strategy that writes a subresource of kind.
func (c *customResources) strategyFor(kind schema.GroupVersionKind, subresource string) any {
	v := c.versions[kind]
	if subresource == "status" && v.status != nil {
		return v.status
	}
	return v.strategy
}

// decodeBody decodes a request's custom resource as the handler's decoder does.
func (v *customVersion) decodeBody(req *engine.Request, directive string) (*unstructured.Unstructured, []string, error) {
	strict := directive == metav1.FieldValidationWarn || directive == metav1.FieldValidationStrict
	serializer := runtimejson.NewSerializerWithOptions(runtimejson.DefaultMetaFactory, unstructuredscheme.NewUnstructuredCreator(),
		unstructuredscheme.NewUnstructuredObjectTyper(), runtimejson.SerializerOptions{Strict: strict})
	defaultKind := req.Kind
	decoded, gvk, err := serializer.Decode(req.Object, &defaultKind, &unstructured.Unstructured{})
	var problems []error
	if err != nil {
		strictErr, ok := runtime.AsStrictDecodingError(err)
		if !ok || decoded == nil {
			return nil, nil, decodeError(req.Kind, gvk, nil, err)
		}
		problems = strictErr.Errors()
	}
	obj, ok := decoded.(*unstructured.Unstructured)
	if !ok {
		return nil, nil, apierrors.NewInternalError(fmt.Errorf("decoded %T, not an unstructured object", decoded))
	}
	unknown, err := v.coerce(obj, strict, false)
	if err != nil {
		return nil, nil, decodeError(req.Kind, gvk, nil, err)
	}
	for _, path := range unknown {
		problems = append(problems, fmt.Errorf(`unknown field "%s"`, path))
	}
	var warnings []string
	if len(problems) > 0 && strict {
		if directive == metav1.FieldValidationStrict {
			return nil, nil, decodeError(req.Kind, gvk, nil, runtime.NewStrictDecodingError(problems))
		}
		for _, p := range problems {
			warnings = append(warnings, p.Error())
		}
	}
	if gvk.GroupVersion() != req.Kind.GroupVersion() {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), req.Kind.GroupVersion()))
	}
	v.defaultObject(obj)
	if req.Operation == admissionv1.Create {
		rest.WipeObjectMetaSystemFields(obj)
	}
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForResource(req.Namespace, req.Resource), obj); err != nil {
		return nil, nil, err
	}
	if refs, duplicates := dedupOwnerReferences(obj.GetOwnerReferences()); len(duplicates) > 0 {
		warnings = append(warnings, duplicateOwnerReferencesWarning(duplicates))
		obj.SetOwnerReferences(refs)
	}
	return obj, warnings, nil
}

// coerce is the apiextensions apiserver's schema coercion of a decoded custom resource: its
// metadata read back as ObjectMeta, unknown fields pruned (unless the CRD preserves them),
// nulls the schema does not allow dropped, embedded metadata coerced. It returns the paths of
// the unknown fields when asked to track them. stored reads an object from storage, where
// malformed metadata is dropped and a missing generation repaired.
func (v *customVersion) coerce(obj *unstructured.Unstructured, trackUnknown, stored bool) ([]string, error) {
	content := obj.UnstructuredContent()
	kind, foundKind, err := unstructured.NestedString(content, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(content, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(content, schemaobjectmeta.ObjectMetaOptions{
		DropMalformedFields: stored, ReturnUnknownFieldPaths: trackUnknown,
	})
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	if gv.Group == v.crd.Spec.Group && kind == v.crd.Spec.Names.Kind && v.structural != nil {
		if !v.preserveUnknown {
			unknown = append(unknown, structuralpruning.PruneWithOptions(content, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: trackUnknown})...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(content, v.structural)
		}
		fieldErr, paths := schemaobjectmeta.CoerceWithOptions(nil, content, v.structural, false, schemaobjectmeta.CoerceOptions{
			DropInvalidFields: stored, ReturnUnknownFieldPaths: trackUnknown,
		})
		if fieldErr != nil {
			return nil, fieldErr
		}
		unknown = append(unknown, paths...)
		if stored && objectMeta != nil && objectMeta.Generation == 0 {
			objectMeta.Generation = 1
		}
	}
	if foundKind {
		obj.SetKind(kind)
	}
	if foundAPIVersion {
		obj.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(content, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// defaultObject applies the schema's defaults.
func (v *customVersion) defaultObject(obj *unstructured.Unstructured) {
	if v.structural != nil {
		structuraldefaulting.Default(obj.UnstructuredContent(), v.structural)
	}
}

// patched is what the webhook plugin does with a patched custom resource: decode it, compare,
// and default it (without pruning).
func (c *customResources) patched(kind schema.GroupVersionKind, before, patched json.RawMessage) (json.RawMessage, bool, error) {
	previous := &unstructured.Unstructured{}
	if err := previous.UnmarshalJSON(before); err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	next := &unstructured.Unstructured{}
	if err := next.UnmarshalJSON(patched); err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	changed := !semanticallyEqual(previous, next)
	c.versions[kind].defaultObject(next)
	out, err := json.Marshal(next.Object)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	return out, changed, nil
}

// stored is a custom resource as the storage writes and reads it: converted to the storage
// version, pruned of what the schema does not know, defaulted, converted back.
func (c *customResources) stored(ctx context.Context, kind schema.GroupVersionKind, object json.RawMessage) (json.RawMessage, error) {
	storageKind := kind
	for _, v := range c.versions[kind].crd.Spec.Versions {
		if v.Storage {
			storageKind.Version = v.Name
		}
	}
	encoded, err := c.converter.Convert(ctx, object, storageKind)
	if err != nil {
		return nil, unconvertedStatus(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(encoded); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	v := c.versions[storageKind]
	if _, err := v.coerce(obj, false, true); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	v.defaultObject(obj)
	read, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, err := c.converter.Convert(ctx, read, kind)
	if err != nil {
		return nil, unconvertedStatus(err)
	}
	return out, nil
}

// unconvertedStatus is how the apiserver's handler answers an error the storage returns as it
// is, a conversion's: a 500 with the error's words alone (responsewriters.ErrorToAPIStatus),
// where admission's conversions are "Internal error occurred: ..." errors.
func unconvertedStatus(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown, Message: err.Error(),
	}}
}

// convert converts a custom resource as its CRD's conversion strategy says.
func (c *customResources) convert(ctx context.Context, object json.RawMessage, to schema.GroupVersionKind) (json.RawMessage, error) {
	return c.converter.Convert(ctx, object, to)
}

// prepare is the generic store's work on a custom resource between mutating and validating
// admission, with the custom resource strategy.
func (c *customResources) prepare(ctx context.Context, at *engine.Attributes, clk clock) error {
	req := at.Request
	v := c.versions[req.Kind]
	s := v.strategy
	switch req.SubResource {
	case "":
	case "status":
		if v.status == nil {
			return apierrors.NewNotFound(req.Resource.GroupResource(), req.Name)
		}
		s = v.status
	default:
		at.Record(engine.Row{Name: "registry", Type: engine.TypePreparation, Outcome: engine.OutcomeSkipped,
			Reason: fmt.Sprintf("the %s subresource has REST handlers of its own", req.SubResource)})
		return nil
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(at.Object()); err != nil {
		return apierrors.NewInternalError(err)
	}
	recorder := &warnings{}
	ctx = requestContext(ctx, req, recorder)
	switch req.Operation {
	case admissionv1.Create:
		clk.fillSystemFields(obj, req)
		if obj.GetGenerateName() != "" && obj.GetName() == "" {
			obj.SetName(s.GenerateName(obj.GetGenerateName()))
		}
		if err := rest.BeforeCreate(s, ctx, obj); err != nil {
			return err
		}
	case admissionv1.Update:
		old := &unstructured.Unstructured{}
		if err := old.UnmarshalJSON(at.OldObject()); err != nil {
			return apierrors.NewInternalError(err)
		}
		if err := checkResourceVersion(s, obj, old, req); err != nil {
			return err
		}
		if err := rest.BeforeUpdate(s, ctx, obj, old); err != nil {
			return err
		}
	}
	prepared, err := json.Marshal(obj.Object)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	at.SetObject(prepared)
	recorder.passTo(at)
	return nil
}
