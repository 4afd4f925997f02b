package audit

import (
	"encoding/json"
	"fmt"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/admitkit/admit/patch"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// replay turns an audit log's events into writes. It keeps the last stored version of every
// object whose resource tracked says to follow: the old object of its later updates and
// deletes.
type replay struct {
	mapper  *resources.Mapper
	tracked func(schema.GroupVersionResource) bool
	dryRun  bool
	stored  map[ObjectKey][]byte
}

func newReplay(mapper *resources.Mapper, tracked func(schema.GroupVersionResource) bool, dryRun bool) *replay {
	return &replay{mapper: mapper, tracked: tracked, dryRun: dryRun, stored: map[ObjectKey][]byte{}}
}

// eventWrite is one event being replayed: what it says, and what the replay knew before it.
type eventWrite struct {
	ev       *event
	key      ObjectKey
	dryRun   bool
	tracked  bool
	previous []byte
	response *unstructured.Unstructured
}

// remember records what the event's write stored, for the events after it.
func (r *replay) remember(e *eventWrite, obj []byte) {
	ref := e.ev.ObjectRef
	if e.tracked && !e.dryRun && e.ev.succeeded() && ref.Subresource != "eviction" && ref.Subresource != "binding" && len(obj) > 0 {
		r.stored[e.key] = obj
	}
}

// write is the write an event replays, or why it cannot be replayed ("" with ok true: not a
// write to replay at all). It records what the write stored for the events after it.
func (r *replay) write(line *logLine, ev *event) (w Write, skip string, ok bool) {
	if !ev.isWrite() || r.isConnect(ev.ObjectRef) {
		return Write{}, "", false
	}
	ref := ev.ObjectRef
	query := ev.query()
	// The key a shard is chosen by: a created object's generated name included.
	e := &eventWrite{ev: ev, key: ev.head().key(),
		dryRun: query.Get("dryRun") == metav1.DryRunAll, tracked: r.tracked(ev.gvr()), response: eventObject(ev.ResponseObject)}
	e.previous = r.stored[e.key]
	w = r.frame(line, e)
	object, skip := r.object(e, &w.Write)
	if skip != "" {
		return Write{}, skip, true
	}
	if e.response != nil && ref.Subresource == "" && ev.Verb != "delete" {
		// What the apiserver stored, its own mutations included.
		r.remember(e, ev.ResponseObject)
	}
	if object.GetAPIVersion() == "" || object.GetKind() == "" {
		kind, err := r.mapper.KindFor(ev.gvr(), ref.Subresource)
		if err != nil {
			return Write{}, "an object of an unknown resource, without its kind", true
		}
		object.SetGroupVersionKind(kind)
	}
	source := line.String()
	w.Object = review.Input{Source: source, Object: object}
	if w.Write.Operation == admissionv1.Update {
		old := eventObject(e.previous)
		if old == nil {
			if object.GetKind() == "Scale" {
				return Write{}, "a scale of an object the log does not show before", true
			}
			// The log does not show the object before: the update is taken for one that changes
			// nothing, the object its own old object.
			old = object.DeepCopy()
		}
		if ev.succeeded() {
			// The apiserver took the update, so what it stored had the uid and the version the
			// request names. At Request level the log shows only what clients sent, whose
			// version is older or none and uid none: the update would fail as a conflict, or
			// as a change of an immutable uid.
			if rv := object.GetResourceVersion(); rv != "" {
				old.SetResourceVersion(rv)
			}
			if uid := object.GetUID(); uid != "" {
				old.SetUID(uid)
			}
		}
		w.Old = &review.Input{Source: source + " (the object before)", Object: old}
	}
	return w, "", true
}

// isConnect reports a CONNECT (exec, attach, port-forward, proxy): not a write.
func (r *replay) isConnect(ref *objectRef) bool {
	if ref.Subresource == "" {
		return false
	}
	res, err := r.mapper.Resource(schema.GroupVersionResource{Group: ref.APIGroup, Version: ref.APIVersion, Resource: ref.Resource})
	if err != nil {
		return false
	}
	sub, has := res.Subresource(ref.Subresource)
	return has && sub.Connect
}

// frame is the write's user, options and origin, as the event's request said them.
func (r *replay) frame(line *logLine, e *eventWrite) Write {
	ev, query := e.ev, e.ev.query()
	user := ev.User
	if ev.ImpersonatedUser != nil {
		user = *ev.ImpersonatedUser
	}
	fieldManager := query.Get("fieldManager")
	if fieldManager == "" {
		// The apiserver names an unnamed writer after its user agent.
		fieldManager, _, _ = strings.Cut(ev.UserAgent, "/")
	}
	gvr := ev.gvr()
	w := Write{
		Resource: &gvr,
		Write: review.Write{
			SubResource: ev.ObjectRef.Subresource, User: user, DryRun: r.dryRun || e.dryRun,
			FieldValidation: query.Get("fieldValidation"), FieldManager: fieldManager, Namespace: ev.ObjectRef.Namespace,
		},
		Origin:   fmt.Sprintf("%s: %s %s by %s", line, ev.Verb, ev.describe(), user.Username),
		Position: line.position,
	}
	if ev.ResponseStatus != nil {
		w.Origin += fmt.Sprintf(", answered %d", ev.ResponseStatus.Code)
	}
	return w
}

// object is the object the event's write admits, its operation set in w, or why it cannot be
// replayed.
func (r *replay) object(e *eventWrite, w *review.Write) (*unstructured.Unstructured, string) {
	ev := e.ev
	switch ev.Verb {
	case "create", "update":
		w.Operation = admissionv1.Create
		write := "a create"
		if ev.Verb == "update" {
			w.Operation, write = admissionv1.Update, "an update"
		}
		object := eventObject(ev.RequestObject)
		if object == nil {
			return nil, write + " logged without its object (the audit policy's level is Metadata)"
		}
		r.remember(e, ev.RequestObject)
		return object, ""
	case "patch":
		w.Operation = admissionv1.Update
		patched, why := applyPatch(ev, e.previous)
		if patched == nil {
			return nil, why
		}
		if data, err := patched.MarshalJSON(); err == nil {
			r.remember(e, data)
		}
		return patched, ""
	}
	// delete
	if ev.ObjectRef.Subresource != "" {
		return nil, "a delete of a subresource"
	}
	w.Operation = admissionv1.Delete
	object := eventObject(e.previous)
	if object == nil {
		object = e.response // the deleted object, at RequestResponse level
	}
	if object == nil {
		return nil, "a delete of an object the log does not show before (a RequestResponse level logs it)"
	}
	if ev.succeeded() && !e.dryRun {
		delete(r.stored, e.key)
	}
	return object, ""
}

// applyPatch is the object a patch event made: its patch applied to the object as the log last
// showed it stored, else the response's object (RequestResponse level). The audit log does not
// say the patch's type: a list is a JSON patch; an object is a strategic merge patch for the
// built-in kinds (a JSON merge patch and an apply configuration read much the same), a JSON merge
// patch for the others.
func applyPatch(ev *event, previous []byte) (*unstructured.Unstructured, string) {
	if previous != nil && len(ev.RequestObject) > 0 {
		if out, err := patched(ev.RequestObject, previous); err == nil && out != nil {
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

// patched applies a logged patch to the object before it.
func patched(requestObject, previous []byte) ([]byte, error) {
	switch requestObject[0] {
	case '[':
		var p patch.Patch
		if err := json.Unmarshal(requestObject, &p); err != nil {
			return nil, err
		}
		return patch.Apply(previous, p)
	case '{':
		if base := eventObject(previous); base != nil {
			if typed, err := resources.Types().New(base.GroupVersionKind()); err == nil {
				return strategicpatch.StrategicMergePatch(previous, requestObject, typed)
			}
		}
		return jsonpatch.MergePatch(previous, requestObject)
	}
	return nil, nil
}
