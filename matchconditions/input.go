package matchconditions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	sigsjson "sigs.k8s.io/json"
)

// Input is one admission as a webhook's match conditions see it.
type Input struct {
	// Request is the AdmissionRequest the webhook would receive: kind and resource (of the
	// invocation), requestKind and requestResource (of the original request), subResource, name,
	// namespace, operation, userInfo, dryRun and options. Its uid is not visible to conditions.
	Request *admissionv1.AdmissionRequest
	// Object and OldObject are the objects in the webhook's version, as JSON; nil or "null"
	// where there is none (oldObject on CREATE, object on DELETE). When Object is nil,
	// Request.Object is used (its Raw JSON, or its Object, e.g. an *unstructured.Unstructured,
	// which saves decoding the same JSON for every webhook); likewise for OldObject.
	Object, OldObject json.RawMessage
	// Authorizer answers the authorizer checks of expressions, for the user of the request.
	// Nil means an authorizer that denies everything (kube-apiserver always has one).
	Authorizer authorizer.Authorizer
}

func (in Input) authorizer() authorizer.Authorizer {
	if in.Authorizer == nil {
		return denyAll{}
	}
	return in.Authorizer
}

// denyAll is the authorizer used when none is given: every check is denied, so
// `authorizer....check(...).allowed()` is false and `.reason()` says why.
type denyAll struct{}

func (denyAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "no authorizer is configured", nil
}

// prepare builds what the apiserver's evaluator needs: versioned attributes (for object,
// oldObject and the authorizer's requestResource) and the request variable.
func (in Input) prepare() (*admission.VersionedAttributes, *admissionv1.AdmissionRequest, error) {
	req := in.Request
	if req == nil {
		return nil, nil, errors.New("matchconditions: the input has no admission request")
	}
	object, err := decodeObject(in.Object, req.Object)
	if err != nil {
		// The apiserver's own wording for the same failure.
		return nil, nil, fmt.Errorf("failed to prepare object variable for evaluation: %w", err)
	}
	oldObject, err := decodeObject(in.OldObject, req.OldObject)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to prepare oldObject variable for evaluation: %w", err)
	}
	celRequest := requestVariable(req)
	attributes := admission.NewAttributesRecord(object, oldObject,
		schema.GroupVersionKind(*celRequest.RequestKind), req.Namespace, req.Name,
		schema.GroupVersionResource(*celRequest.RequestResource), req.SubResource,
		admission.Operation(req.Operation), nil, *celRequest.DryRun, userFor(req.UserInfo))
	return &admission.VersionedAttributes{
		Attributes:         attributes,
		VersionedObject:    object,
		VersionedOldObject: oldObject,
		VersionedKind:      schema.GroupVersionKind(req.Kind),
	}, celRequest, nil
}

// requestVariable is the `request` variable: the fields kube-apiserver fills in for match
// conditions (not uid, object or oldObject). One quirk is kept on purpose: the apiserver gives
// conditions the invocation's kind but the *requested* resource (request.resource equals
// request.requestResource), even when the webhook was matched through an equivalent resource.
func requestVariable(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionRequest {
	requestKind := req.Kind
	if req.RequestKind != nil {
		requestKind = *req.RequestKind
	}
	requestResource := req.Resource
	if req.RequestResource != nil {
		requestResource = *req.RequestResource
	}
	dryRun := req.DryRun != nil && *req.DryRun
	userInfo := authenticationv1.UserInfo{
		Username: req.UserInfo.Username,
		UID:      req.UserInfo.UID,
		Groups:   req.UserInfo.Groups,
		Extra:    make(map[string]authenticationv1.ExtraValue, len(req.UserInfo.Extra)),
	}
	for key, values := range req.UserInfo.Extra {
		userInfo.Extra[key] = values
	}
	return &admissionv1.AdmissionRequest{
		Kind:               req.Kind,
		Resource:           requestResource,
		SubResource:        req.SubResource,
		RequestKind:        &requestKind,
		RequestResource:    &requestResource,
		RequestSubResource: req.SubResource,
		Name:               req.Name,
		Namespace:          req.Namespace,
		Operation:          req.Operation,
		UserInfo:           userInfo,
		DryRun:             &dryRun,
		Options:            req.Options,
	}
}

func userFor(info authenticationv1.UserInfo) user.Info {
	extra := make(map[string][]string, len(info.Extra))
	for key, values := range info.Extra {
		extra[key] = values
	}
	return &user.DefaultInfo{Name: info.Username, UID: info.UID, Groups: info.Groups, Extra: extra}
}

// decodeObject returns the object conditions see: raw when given, else the request's. JSON is
// decoded as the apiserver decodes objects, integers as int64, so `object.spec.replicas + 1`
// works as it does in a cluster.
func decodeObject(raw json.RawMessage, fromRequest runtime.RawExtension) (runtime.Object, error) {
	if raw == nil {
		if fromRequest.Object != nil {
			return fromRequest.Object, nil
		}
		raw = fromRequest.Raw
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil, nil
	}
	var content any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(trimmed, &content); err != nil {
		return nil, err
	}
	object, ok := content.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %s", jsonKind(content))
	}
	return &unstructured.Unstructured{Object: object}, nil
}

func jsonKind(value any) string {
	switch value.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}
