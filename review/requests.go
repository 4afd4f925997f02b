package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
)

// Write is how the objects are written, as a client's request says it.
type Write struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT; empty means CREATE, or UPDATE for an
	// object with an old counterpart.
	Operation admissionv1.Operation
	// SubResource is the subresource written, e.g. "status" or "scale".
	SubResource string
	// User is the requesting user.
	User authenticationv1.UserInfo
	// DryRun marks dry-run requests (kubectl's --dry-run=server).
	DryRun bool
	// FieldValidation is what the client asks of unknown and duplicate fields: Strict (what
	// kubectl sends), Warn or Ignore; empty sends none (the apiserver's default, Warn).
	FieldValidation string
	// FieldManager, when set, is the request's field manager; default the Config's.
	FieldManager string
	// Namespace is the namespace of namespaced objects that name none; default "default". With
	// NamespaceRequired, an object naming another namespace is an error, as with kubectl -n.
	Namespace         string
	NamespaceRequired bool
}

// missingCRDError is an object of a custom kind whose CustomResourceDefinition is not known.
type missingCRDError struct{ error }

func (e *missingCRDError) Unwrap() error { return e.error }

// resolved is an input with its kind's resource and namespace, checked to decode as its kind.
type resolved struct {
	Input
	resource  resources.Resource
	namespace string
	json      []byte
}

func (r *resolved) key() objectKey {
	gvk := r.Object.GroupVersionKind()
	return objectKey{group: gvk.Group, kind: gvk.Kind, namespace: r.namespace, name: r.Object.GetName()}
}

// Requests builds the admission the apiserver would run for each object, pairing UPDATEs with
// their old objects by kind, namespace and name. A problem with one object is kept in its
// Outcome (the others are still reviewed); a problem with the olds or w is returned.
func (s *Session) Requests(objects, olds []Input, w Write) ([]*Outcome, error) {
	b, err := s.newBuilder(olds, w)
	if err != nil {
		return nil, err
	}
	outcomes := make([]*Outcome, len(objects))
	for i, in := range objects {
		outcomes[i] = b.build(in)
	}
	if err := b.unusedOld(); err != nil {
		return nil, err
	}
	return outcomes, nil
}

// builder builds the requests of a run's objects one at a time, in input order, pairing each
// with its old object: what Requests does for objects held at once and a Stream for objects
// read one at a time.
type builder struct {
	s        *Session
	w        Write
	op       admissionv1.Operation
	oldByKey map[objectKey]*resolved
	oldOrder []objectKey
	// used are the old objects an object was paired with.
	used map[objectKey]bool
}

// newBuilder checks w and the olds, and resolves the olds.
func (s *Session) newBuilder(olds []Input, w Write) (*builder, error) {
	op := admissionv1.Operation(strings.ToUpper(string(w.Operation)))
	switch op {
	case "", admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
	default:
		return nil, fmt.Errorf("operation %q: use CREATE, UPDATE, DELETE or CONNECT", w.Operation)
	}
	if len(olds) > 0 && op != "" && op != admissionv1.Update {
		return nil, fmt.Errorf("%s: for an UPDATE only, not %s", s.cfg.Terms.OldObjects, op)
	}
	if op == admissionv1.Update && len(olds) == 0 {
		return nil, fmt.Errorf("an UPDATE needs the existing object: give %s", s.cfg.Terms.OldObjects)
	}
	if w.Namespace == "" {
		w.Namespace = "default"
	}
	if w.FieldManager == "" {
		w.FieldManager = s.cfg.FieldManager
	}
	b := &builder{s: s, w: w, op: op, oldByKey: map[objectKey]*resolved{}, used: map[objectKey]bool{}}
	for _, in := range olds {
		old, err := s.resolve(in, w)
		if err != nil {
			return nil, err
		}
		k := old.key()
		if first, dup := b.oldByKey[k]; dup {
			return nil, fmt.Errorf("%s: %s is in %s twice (first at %s)", in.Source, k, s.cfg.Terms.OldObjects, first.Source)
		}
		b.oldByKey[k] = old
		b.oldOrder = append(b.oldOrder, k)
	}
	return b, nil
}

// build is one object's Outcome: its request, or why it has none.
func (b *builder) build(in Input) *Outcome {
	s, w, op := b.s, b.w, b.op
	o := &Outcome{Source: in.Source, Object: in.Object}
	if body, parent, ok := s.subresourceBody(in, w, b.oldByKey); ok {
		// The subresource's own kind (a Scale, an Eviction, a Binding), on its parent.
		if parent != nil {
			b.used[parent.key()] = true
		}
		o.Request, o.Err = s.subresourceRequest(body, parent, op, w)
		return o
	}
	obj, err := s.resolve(in, w)
	var missing *missingCRDError
	switch {
	case errors.As(err, &missing) && s.cfg.SkipMissingCRDs:
		o.Skipped = strings.TrimPrefix(missing.Error(), in.Source+": ")
		return o
	case err != nil:
		o.Err = err
		return o
	}
	old := b.oldByKey[obj.key()]
	if old != nil {
		b.used[obj.key()] = true
	}
	o.Request, o.Err = s.request(obj, old, op, w)
	if o.Err == nil && w.SubResource == "scale" {
		// The changed parent stands for the Scale a client sends: its replicas on the stored
		// parent's Scale.
		o.Request, o.Err = s.scaleFromParent(o.Request, obj, old)
	}
	return o
}

// unusedOld is the error for the first old object no object was paired with.
func (b *builder) unusedOld() error {
	for _, k := range b.oldOrder {
		if !b.used[k] {
			return fmt.Errorf("%s: %s is in %s but not among the objects to review (an UPDATE pairs objects of the same kind, namespace and name)", b.oldByKey[k].Source, k, b.s.cfg.Terms.OldObjects)
		}
	}
	return nil
}

// resolve finds an object's resource and namespace, and checks it decodes as its kind.
func (s *Session) resolve(in Input, w Write) (*resolved, error) {
	obj, source := in.Object, in.Source
	gvk := obj.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, fmt.Errorf("%s: the object needs apiVersion and kind", source)
	}
	res, err := s.mapper.ResourceFor(gvk)
	if err != nil {
		var notFound *resources.NotFoundError
		if errors.As(err, &notFound) && notFound.UnknownGroup {
			// A group nothing serves: a custom kind, whose CRD was not given.
			return nil, &missingCRDError{fmt.Errorf("%s: %w (custom kinds need %s)", source, err, s.cfg.Terms.CRDs)}
		}
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	namespace := obj.GetNamespace()
	switch {
	case res.GVR.Group == "" && res.GVR.Resource == "namespaces":
		namespace = obj.GetName() // a Namespace request carries its own name
	case !res.Namespaced:
		namespace = ""
	case namespace == "":
		namespace = w.Namespace
		obj.SetNamespace(namespace)
	case w.NamespaceRequired && namespace != w.Namespace:
		// kubectl's check, in kubectl's words: -n names where to write, not a filter.
		return nil, fmt.Errorf("%s: the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", source, namespace, w.Namespace, namespace)
	}
	objectJSON, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := s.decodesAsItsKind(source, gvk, objectJSON); err != nil {
		return nil, err
	}
	return &resolved{Input: in, resource: res, namespace: namespace, json: objectJSON}, nil
}

// request builds the admission for one object, an UPDATE of old when old is not nil.
func (s *Session) request(obj, old *resolved, op admissionv1.Operation, w Write) (*engine.Request, error) {
	source, res, gvk := obj.Source, obj.resource, obj.Object.GroupVersionKind()
	if op == "" {
		op = admissionv1.Create
		if old != nil {
			op = admissionv1.Update
		}
	}
	if op == admissionv1.Update && old == nil {
		return nil, fmt.Errorf("%s: nothing in %s for %s: an UPDATE needs the existing object", source, s.cfg.Terms.OldObjects, obj.key())
	}
	if w.SubResource != "" {
		if _, ok := res.Subresource(w.SubResource); !ok {
			return nil, fmt.Errorf("subresource %q: %s has no such subresource", w.SubResource, res.GVR.GroupResource())
		}
	}
	req, err := s.newRequest(gvk, res.GVR, obj.Object.GetName(), obj.namespace, op, w)
	if err != nil {
		return nil, err
	}
	if op == admissionv1.Create && req.Name == "" && !res.Anonymous() {
		generate := obj.Object.GetGenerateName()
		if generate == "" {
			return nil, fmt.Errorf("%s: the object needs metadata.name or metadata.generateName", source)
		}
		req.GeneratedName = generate + nameSuffix(source, obj.namespace, generate)
	}
	switch op {
	case admissionv1.Delete:
		req.OldObject = obj.json
	default:
		req.Object = obj.json
	}
	if old != nil {
		req.OldObject = old.json
	}
	return req, nil
}

// newRequest is a request's frame: what is written, by whom, with the options kubectl sends.
func (s *Session) newRequest(kind schema.GroupVersionKind, resource schema.GroupVersionResource, name, namespace string, op admissionv1.Operation, w Write) (*engine.Request, error) {
	req := &engine.Request{
		Kind: kind, Resource: resource, SubResource: w.SubResource, Name: name, Namespace: namespace,
		Operation: op, DryRun: w.DryRun, UserInfo: w.User,
	}
	options, err := requestOptions(op, w)
	if err != nil {
		return nil, err
	}
	req.Options = options
	return req, nil
}

// requestOptions are the options a kubectl write sends with its body, which webhooks receive as
// the request's options: dry run, the field manager and field validation for CREATE and UPDATE;
// dry run and kubectl delete's background propagation for DELETE.
func requestOptions(op admissionv1.Operation, w Write) (json.RawMessage, error) {
	var dryRunAll []string
	if w.DryRun {
		dryRunAll = []string{metav1.DryRunAll}
	}
	meta := func(kind string) metav1.TypeMeta { return metav1.TypeMeta{Kind: kind, APIVersion: "meta.k8s.io/v1"} }
	var options any
	switch op {
	case admissionv1.Create:
		options = metav1.CreateOptions{TypeMeta: meta("CreateOptions"), DryRun: dryRunAll, FieldManager: w.FieldManager, FieldValidation: w.FieldValidation}
	case admissionv1.Update:
		options = metav1.UpdateOptions{TypeMeta: meta("UpdateOptions"), DryRun: dryRunAll, FieldManager: w.FieldManager, FieldValidation: w.FieldValidation}
	case admissionv1.Delete:
		background := metav1.DeletePropagationBackground
		options = metav1.DeleteOptions{TypeMeta: meta("DeleteOptions"), DryRun: dryRunAll, PropagationPolicy: &background}
	default:
		return nil, nil
	}
	return json.Marshal(options)
}

// decodesAsItsKind rejects a built-in object that does not decode into its Go type, with the
// message kube-apiserver answers such a write with (400 BadRequest) before admission starts.
// The dispatcher relies on it: it checks a patched object only where the patch wrote.
func (s *Session) decodesAsItsKind(source string, gvk schema.GroupVersionKind, object []byte) error {
	typed, err := s.types.New(gvk)
	if err != nil {
		return nil // a custom kind: its schema is the apiserver's business
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(object, typed); err != nil {
		return fmt.Errorf("%s: %s in version %q cannot be handled as a %s: %w", source, gvk.Kind, gvk.Version, gvk.Kind, err)
	}
	return nil
}

// nameSuffix is the five characters the registry appends to a generateName, from the
// apiserver's alphabet. The apiserver picks them at random; here they are derived from the
// object and where it came from, so that a review gives the same names run after run and at any
// concurrency.
func nameSuffix(source, namespace, generateName string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	h := fnv.New64a()
	for _, part := range []string{source, namespace, generateName} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	n := h.Sum64()
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[n%uint64(len(alphabet))]
		n /= uint64(len(alphabet))
	}
	return string(b)
}
