package audit

import (
	"encoding/json"
	"net/url"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A Kubernetes audit log: audit.k8s.io/v1 Events, one JSON object a line, as kube-apiserver's
// --audit-log-path writes them. Events are read at their ResponseComplete stage, the one every
// audit policy logs unless told otherwise.

// event is what a replay reads of an audit.k8s.io/v1 Event.
type event struct {
	Level            string                     `json:"level"`
	Stage            string                     `json:"stage"`
	RequestURI       string                     `json:"requestURI"`
	Verb             string                     `json:"verb"`
	User             authenticationv1.UserInfo  `json:"user"`
	ImpersonatedUser *authenticationv1.UserInfo `json:"impersonatedUser"`
	UserAgent        string                     `json:"userAgent"`
	ObjectRef        *objectRef                 `json:"objectRef"`
	ResponseStatus   *metav1.Status             `json:"responseStatus"`
	RequestObject    json.RawMessage            `json:"requestObject"`
	ResponseObject   json.RawMessage            `json:"responseObject"`
}

// isWrite reports an event of a write that reached its end.
func (ev *event) isWrite() bool { return ev.head().isWrite() }

func (ev *event) head() *eventHead {
	return &eventHead{Stage: ev.Stage, Verb: ev.Verb, ObjectRef: ev.ObjectRef, ResponseObject: rawAlias(ev.ResponseObject)}
}

// succeeded reports a write the apiserver carried out, which changed what is stored.
func (ev *event) succeeded() bool {
	return ev.ResponseStatus == nil || (ev.ResponseStatus.Code >= 200 && ev.ResponseStatus.Code < 300)
}

func (ev *event) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: ev.ObjectRef.APIGroup, Version: ev.ObjectRef.APIVersion, Resource: ev.ObjectRef.Resource}
}

// query is the request's URL query: dryRun, fieldManager, fieldValidation.
func (ev *event) query() url.Values {
	u, err := url.Parse(ev.RequestURI)
	if err != nil {
		return url.Values{}
	}
	return u.Query()
}

// operation is the admission operation of the event's verb.
func (ev *event) operation() admissionregistrationv1.OperationType {
	switch ev.Verb {
	case "create":
		return admissionregistrationv1.Create
	case "delete":
		return admissionregistrationv1.Delete
	}
	return admissionregistrationv1.Update
}

// describe names what the event wrote: "pods/status web-1 in shop".
func (ev *event) describe() string {
	ref := ev.ObjectRef
	s := ref.Resource
	if ref.APIGroup != "" {
		s += "." + ref.APIGroup
	}
	if ref.Subresource != "" {
		s += "/" + ref.Subresource
	}
	if ref.Name != "" {
		s += " " + ref.Name
	}
	if ref.Namespace != "" {
		s += " in " + ref.Namespace
	}
	return s
}

// eventObject decodes one of an event's objects; nil for none, a Status or a patch.
func eventObject(raw json.RawMessage) *unstructured.Unstructured {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil || obj.GetKind() == "Status" || obj.GetKind() == "" {
		return nil
	}
	return obj
}
