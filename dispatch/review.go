package dispatch

import (
	"bytes"
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// optionsFor returns the options object the apiserver sends for op when the caller gave none.
func optionsFor(op admissionv1.Operation) json.RawMessage {
	switch op {
	case admissionv1.Create:
		return json.RawMessage(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`)
	case admissionv1.Update:
		return json.RawMessage(`{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1"}`)
	case admissionv1.Delete:
		return json.RawMessage(`{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1"}`)
	}
	return nil
}

func reviewVersion(versions []string) string {
	for _, v := range versions {
		if v == "v1" || v == "v1beta1" {
			return v
		}
	}
	return ""
}

// reviewRequest builds the request a webhook receives for inv: its own kind and resource, the
// client's as requestKind/requestResource.
func (a *admission) reviewRequest(inv *invocation, uid types.UID, object, old json.RawMessage) *admissionv1.AdmissionRequest {
	req := a.req
	dryRun := req.DryRun
	kind := metav1.GroupVersionKind(req.Kind)
	resource := metav1.GroupVersionResource(req.Resource)
	out := &admissionv1.AdmissionRequest{
		UID:                uid,
		Kind:               metav1.GroupVersionKind(inv.kind),
		Resource:           metav1.GroupVersionResource(inv.resource),
		SubResource:        inv.subresource,
		RequestKind:        &kind,
		RequestResource:    &resource,
		RequestSubResource: req.SubResource,
		Name:               a.name(),
		Namespace:          req.Namespace,
		Operation:          req.Operation,
		UserInfo:           req.UserInfo,
		DryRun:             &dryRun,
	}
	if len(object) > 0 {
		out.Object = runtime.RawExtension{Raw: object}
	}
	if len(old) > 0 {
		out.OldObject = runtime.RawExtension{Raw: old}
	}
	options := req.Options
	if len(options) == 0 {
		options = optionsFor(req.Operation)
	}
	if len(options) > 0 {
		out.Options = runtime.RawExtension{Raw: options}
	}
	return out
}

// reviewHead is an AdmissionRequest without its objects, which encodeReview writes itself.
type reviewHead struct {
	UID                types.UID                    `json:"uid"`
	Kind               metav1.GroupVersionKind      `json:"kind"`
	Resource           metav1.GroupVersionResource  `json:"resource"`
	SubResource        string                       `json:"subResource,omitempty"`
	RequestKind        *metav1.GroupVersionKind     `json:"requestKind,omitempty"`
	RequestResource    *metav1.GroupVersionResource `json:"requestResource,omitempty"`
	RequestSubResource string                       `json:"requestSubResource,omitempty"`
	Name               string                       `json:"name,omitempty"`
	Namespace          string                       `json:"namespace,omitempty"`
	Operation          admissionv1.Operation        `json:"operation"`
	UserInfo           authenticationv1.UserInfo    `json:"userInfo"`
	DryRun             *bool                        `json:"dryRun,omitempty"`
}

// encodeReview writes the AdmissionReview for req with object, old and req's options as they
// are. encoding/json would validate and copy each embedded object again for every webhook; they
// are known to be valid JSON (checked once when the admission starts, or produced by the patch
// and conversion code), so they are written around instead.
func encodeReview(version string, req *admissionv1.AdmissionRequest, object, old json.RawMessage) ([]byte, error) {
	head, err := json.Marshal(reviewHead{
		UID: req.UID, Kind: req.Kind, Resource: req.Resource, SubResource: req.SubResource,
		RequestKind: req.RequestKind, RequestResource: req.RequestResource, RequestSubResource: req.RequestSubResource,
		Name: req.Name, Namespace: req.Namespace, Operation: req.Operation, UserInfo: req.UserInfo, DryRun: req.DryRun,
	})
	if err != nil {
		return nil, err
	}
	orNull := func(raw []byte) []byte {
		if len(raw) == 0 {
			return []byte("null")
		}
		return raw
	}
	var b bytes.Buffer
	b.Grow(len(head) + len(object) + len(old) + len(req.Options.Raw) + 128)
	b.WriteString(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/`)
	b.WriteString(version)
	b.WriteString(`","request":`)
	b.Write(head[:len(head)-1]) // without its closing brace
	b.WriteString(`,"object":`)
	b.Write(orNull(object))
	b.WriteString(`,"oldObject":`)
	b.Write(orNull(old))
	b.WriteString(`,"options":`)
	b.Write(orNull(req.Options.Raw))
	b.WriteString(`}}`)
	return b.Bytes(), nil
}
