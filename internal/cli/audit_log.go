package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/admitkit/admit/patch"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// A Kubernetes audit log (audit.k8s.io/v1 Events, one JSON object a line, as kube-apiserver's
// --audit-log-path writes them) replayed: each write — create, update, patch, delete, on a
// resource or a subresource — becomes the admission it was, with its user and groups and the
// options of its request; an UPDATE's old object is the object as the log last showed it stored
// (the previous event's response at RequestResponse level, its request at Request level), a
// patch is applied to it. Events are read at their ResponseComplete stage, the one every audit
// policy logs unless told otherwise.

// auditEvent is what a replay reads of an audit.k8s.io/v1 Event.
type auditEvent struct {
	Level            string                     `json:"level"`
	Stage            string                     `json:"stage"`
	RequestURI       string                     `json:"requestURI"`
	Verb             string                     `json:"verb"`
	User             authenticationv1.UserInfo  `json:"user"`
	ImpersonatedUser *authenticationv1.UserInfo `json:"impersonatedUser"`
	UserAgent        string                     `json:"userAgent"`
	ObjectRef        *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		APIVersion  string `json:"apiVersion"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *metav1.Status  `json:"responseStatus"`
	RequestObject  json.RawMessage `json:"requestObject"`
	ResponseObject json.RawMessage `json:"responseObject"`
}

// logKey identifies a stored object in a replay: its resource (any version), namespace, name.
type logKey struct {
	group, resource, namespace, name string
}

// auditItem is one write to admit under both configurations.
type auditItem struct {
	object review.Input
	// old is the UPDATE's existing object.
	old   *review.Input
	write review.Write
	// gvr is the resource written, when known before the request is built (an audit log's).
	gvr *schema.GroupVersionResource
	// origin describes the audit log's event.
	origin string
}

// logReplay turns an audit log's events into writes. It keeps the last stored version of every
// object whose resource tracked says a changed step may match: the old object of its later
// updates and deletes.
type logReplay struct {
	label   string
	mapper  *resources.Mapper
	tracked func(schema.GroupVersionResource) bool
	dryRun  bool
	stored  map[logKey][]byte
	// skipped counts the writes that cannot be replayed, by why.
	skipped map[string]int
}

func newLogReplay(label string, mapper *resources.Mapper, tracked func(schema.GroupVersionResource) bool, dryRun bool) *logReplay {
	return &logReplay{label: label, mapper: mapper, tracked: tracked, dryRun: dryRun, stored: map[logKey][]byte{}, skipped: map[string]int{}}
}

// eachAuditEvent calls fn with every event of an audit log, and its line.
func eachAuditEvent(path, label string, fn func(line int, ev *auditEvent) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		data, err := r.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", label, line, err)
		}
		if len(strings.TrimSpace(string(data))) > 0 {
			var ev auditEvent
			if jerr := json.Unmarshal(data, &ev); jerr != nil {
				return fmt.Errorf("%s:%d: not an audit event (JSON lines of audit.k8s.io/v1 Events, as --audit-log-path writes them): %w", label, line, jerr)
			}
			if ev.Stage == "" || ev.Verb == "" {
				return fmt.Errorf("%s:%d: not an audit event (it has no stage or verb)", label, line)
			}
			if ferr := fn(line, &ev); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// isWrite reports an event of a write that reached its end.
func (ev *auditEvent) isWrite() bool {
	if ev.Stage != "ResponseComplete" || ev.ObjectRef == nil || ev.ObjectRef.Resource == "" {
		return false
	}
	switch ev.Verb {
	case "create", "update", "patch", "delete":
		return true
	}
	return false
}

// succeeded reports a write the apiserver carried out, which changed what is stored.
func (ev *auditEvent) succeeded() bool {
	return ev.ResponseStatus == nil || (ev.ResponseStatus.Code >= 200 && ev.ResponseStatus.Code < 300)
}

func (ev *auditEvent) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: ev.ObjectRef.APIGroup, Version: ev.ObjectRef.APIVersion, Resource: ev.ObjectRef.Resource}
}

// query is the request's URL query: dryRun, fieldManager, fieldValidation.
func (ev *auditEvent) query() url.Values {
	u, err := url.Parse(ev.RequestURI)
	if err != nil {
		return url.Values{}
	}
	return u.Query()
}

// object decodes one of the event's objects; nil for none, a Status or a patch.
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

// item is the write an event replays, or why it cannot be replayed ("" with ok true: not a write
// to replay at all). It records what the write stored for the events after it.
func (lr *logReplay) item(line int, ev *auditEvent) (it auditItem, skip string, ok bool) {
	if !ev.isWrite() {
		return auditItem{}, "", false
	}
	ref := ev.ObjectRef
	gvr := ev.gvr()
	if ref.Subresource != "" {
		if res, err := lr.mapper.Resource(gvr); err == nil {
			if sub, has := res.Subresource(ref.Subresource); has && sub.Connect {
				return auditItem{}, "", false // exec, attach, port-forward, proxy: CONNECTs, not writes
			}
		}
	}
	query := ev.query()
	dryRun := query.Get("dryRun") == metav1.DryRunAll
	key := logKey{group: ref.APIGroup, resource: ref.Resource, namespace: ref.Namespace, name: ref.Name}
	tracked := lr.tracked(gvr)
	// What the write stored, for the events after it: the response's object at RequestResponse
	// level, else what the request sent (or its patch applied).
	remember := func(obj []byte) {
		if tracked && !dryRun && ev.succeeded() && ref.Subresource != "eviction" && ref.Subresource != "binding" && len(obj) > 0 {
			lr.stored[key] = obj
		}
	}
	if ref.Name == "" && ev.Verb == "create" {
		if created := eventObject(ev.ResponseObject); created != nil {
			key.name = created.GetName() // a generated name
		}
	}
	previous := lr.stored[key]
	response := eventObject(ev.ResponseObject)

	user := ev.User
	if ev.ImpersonatedUser != nil {
		user = *ev.ImpersonatedUser
	}
	fieldManager := query.Get("fieldManager")
	if fieldManager == "" {
		// The apiserver names an unnamed writer after its user agent.
		fieldManager, _, _ = strings.Cut(ev.UserAgent, "/")
	}
	it = auditItem{
		gvr: &gvr,
		write: review.Write{
			SubResource: ref.Subresource, User: user, DryRun: lr.dryRun || dryRun,
			FieldValidation: query.Get("fieldValidation"), FieldManager: fieldManager, Namespace: ref.Namespace,
		},
		origin: fmt.Sprintf("%s:%d: %s %s by %s", lr.label, line, ev.Verb, describeRef(ev), user.Username),
	}
	if ev.ResponseStatus != nil {
		it.origin += fmt.Sprintf(", answered %d", ev.ResponseStatus.Code)
	}
	source := fmt.Sprintf("%s:%d", lr.label, line)

	var object *unstructured.Unstructured
	switch ev.Verb {
	case "create", "update":
		it.write.Operation, object = admissionv1.Create, eventObject(ev.RequestObject)
		write := "a create"
		if ev.Verb == "update" {
			it.write.Operation, write = admissionv1.Update, "an update"
		}
		if object == nil {
			return auditItem{}, write + " logged without its object (the audit policy's level is Metadata)", true
		}
		remember(ev.RequestObject)
	case "patch":
		it.write.Operation = admissionv1.Update
		patched, why := lr.applyPatch(ev, previous)
		if patched == nil {
			return auditItem{}, why, true
		}
		object = patched
		if data, err := patched.MarshalJSON(); err == nil {
			remember(data)
		}
	case "delete":
		if ref.Subresource != "" {
			return auditItem{}, "a delete of a subresource", true
		}
		it.write.Operation = admissionv1.Delete
		object = eventObject(previous)
		if object == nil {
			object = response // the deleted object, at RequestResponse level
		}
		if object == nil {
			return auditItem{}, "a delete of an object the log does not show before (a RequestResponse level logs it)", true
		}
		if ev.succeeded() && !dryRun {
			delete(lr.stored, key)
		}
	}
	if response != nil && ref.Subresource == "" && ev.Verb != "delete" {
		// What the apiserver stored, its own mutations included.
		remember(ev.ResponseObject)
	}
	if object.GetAPIVersion() == "" || object.GetKind() == "" {
		kind, err := lr.mapper.KindFor(gvr, ref.Subresource)
		if err != nil {
			return auditItem{}, "an object of an unknown resource, without its kind", true
		}
		object.SetGroupVersionKind(kind)
	}
	it.object = review.Input{Source: source, Object: object}
	if it.write.Operation == admissionv1.Update {
		old := eventObject(previous)
		if old == nil {
			if object.GetKind() == "Scale" {
				return auditItem{}, "a scale of an object the log does not show before", true
			}
			// The log does not show the object before: the update is taken for one that changes
			// nothing, the object its own old object.
			old = object.DeepCopy()
		}
		it.old = &review.Input{Source: source + " (the object before)", Object: old}
	}
	return it, "", true
}

// eventOperation is the admission operation of a write's verb.
func eventOperation(verb string) admissionregistrationv1.OperationType {
	switch verb {
	case "create":
		return admissionregistrationv1.Create
	case "delete":
		return admissionregistrationv1.Delete
	}
	return admissionregistrationv1.Update
}

// describeRef names what an event wrote: "pods/status web-1 in shop".
func describeRef(ev *auditEvent) string {
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

// applyPatch is the object a patch event made: its patch applied to the object as the log last
// showed it stored, else the response's object (RequestResponse level). The audit log does not
// say the patch's type: a list is a JSON patch; an object is a strategic merge patch for the
// built-in kinds (a JSON merge patch and an apply configuration read much the same), a JSON merge
// patch for the others.
func (lr *logReplay) applyPatch(ev *auditEvent, previous []byte) (*unstructured.Unstructured, string) {
	if previous != nil && len(ev.RequestObject) > 0 {
		var out []byte
		var err error
		switch ev.RequestObject[0] {
		case '[':
			var p patch.Patch
			if err = json.Unmarshal(ev.RequestObject, &p); err == nil {
				out, err = patch.Apply(previous, p)
			}
		case '{':
			base := eventObject(previous)
			typed, terr := typedObject(base)
			if terr == nil {
				out, err = strategicpatch.StrategicMergePatch(previous, ev.RequestObject, typed)
			} else {
				out, err = jsonpatch.MergePatch(previous, ev.RequestObject)
			}
		}
		if err == nil && out != nil {
			if obj := eventObject(out); obj != nil {
				return obj, ""
			}
		}
	}
	if ev.ObjectRef.Subresource == "" {
		if obj := eventObject(ev.ResponseObject); obj != nil {
			return obj, ""
		}
	}
	if previous == nil {
		return nil, "a patch of an object the log does not show before (a RequestResponse level logs it)"
	}
	return nil, "a patch that does not apply to the object the log shows before"
}

// typedObject is an empty Go value of a built-in object's kind, for strategic merge patches.
func typedObject(obj *unstructured.Unstructured) (runtime.Object, error) {
	if obj == nil {
		return nil, fmt.Errorf("no object")
	}
	return clientgoscheme.Scheme.New(obj.GroupVersionKind())
}
