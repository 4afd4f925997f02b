package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/kubernetes/plugin/pkg/admission/serviceaccount"

	"github.com/admitkit/admit/engine"
)

// builtin drives one of kube-apiserver's admission plugins for the dispatcher: the object in
// the internal version, the apiserver's admission attributes, and back.
type builtin struct {
	name       string
	plugin     admission.Interface
	codec      *codec
	interfaces admission.ObjectInterfaces
}

func (b *builtin) Name() string { return b.name }

func (b *builtin) Type() engine.RowType { return engine.TypeAdmissionPlugin }

type mutatingBuiltin struct{ *builtin }

func (m mutatingBuiltin) Admit(ctx context.Context, at *engine.Attributes) error {
	return m.run(ctx, at, true)
}

type validatingBuiltin struct{ *builtin }

func (v validatingBuiltin) Validate(ctx context.Context, at *engine.Attributes) error {
	return v.run(ctx, at, false)
}

type mutatingAndValidatingBuiltin struct{ *builtin }

func (m mutatingAndValidatingBuiltin) Admit(ctx context.Context, at *engine.Attributes) error {
	return m.run(ctx, at, true)
}

func (m mutatingAndValidatingBuiltin) Validate(ctx context.Context, at *engine.Attributes) error {
	return m.run(ctx, at, false)
}

// run calls the plugin's Admit (mutate) or Validate on the admission's object.
func (b *builtin) run(ctx context.Context, at *engine.Attributes, mutate bool) error {
	req := at.Request
	op := admission.Operation(req.Operation)
	if !b.plugin.Handles(op) {
		at.NotApplicable()
		return nil
	}
	if b.codec.classify(req.Kind) == unknownKind {
		at.Record(engine.Row{Name: b.name, Type: b.Type(), Outcome: engine.OutcomeSkipped, Reason: unknownKindReason(req.Kind)})
		return nil
	}
	obj, err := b.codec.internalObject(at)
	if err != nil {
		return err
	}
	old, err := b.codec.internalOldObject(at)
	if err != nil {
		return err
	}
	options, err := admissionOptions(at)
	if err != nil {
		return err
	}
	record := &annotatedAttributes{Attributes: admission.NewAttributesRecord(obj, old, req.Kind, req.Namespace, at.Name(), req.Resource, req.SubResource, op, options, req.DryRun, admissionUser(ctx, req))}
	recorder := &warnings{}
	ctx = requestContext(ctx, req, recorder)
	var watched *watchedAttributes
	if mutate {
		watched = &watchedAttributes{annotatedAttributes: record, object: obj}
		err = b.plugin.(admission.MutationInterface).Admit(ctx, watched, b.interfaces)
	} else {
		err = b.plugin.(admission.ValidationInterface).Validate(ctx, record, b.interfaces)
	}
	recorder.passTo(at)
	for _, a := range record.annotations {
		at.AddAnnotation(a[0], a[1])
	}
	if err != nil {
		return err
	}
	if !mutate || obj == nil {
		return nil
	}
	// A plugin that never asked for the object holds no reference to it: it cannot have
	// changed it, and there is nothing to compare.
	before, taken := watched.taken()
	if !taken {
		return nil
	}
	if b.name == serviceaccount.PluginName {
		nameTokenVolume(before, obj, req)
	}
	if !semanticallyEqual(before, obj) {
		out, err := b.codec.fromInternal(ctx, obj, req.Kind)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		at.SetObject(out)
		b.codec.rememberInternal(at, out, obj)
	}
	return nil
}

// watchedAttributes are a mutating plugin's attributes: they copy the object the first time the
// plugin asks for it, for the change test after the plugin returns. GetObject is the only way
// a plugin reaches the object, so the copy taken then is the object as the plugin found it; a
// plugin that never asks (most of them, for a kind they do not handle) cannot change it and
// costs neither a copy nor a comparison.
type watchedAttributes struct {
	*annotatedAttributes
	object runtime.Object
	once   sync.Once
	before runtime.Object
	asked  bool
}

func (a *watchedAttributes) GetObject() runtime.Object {
	a.once.Do(func() {
		a.asked = true
		if a.object != nil {
			a.before = a.object.DeepCopyObject()
		}
	})
	return a.object
}

// taken says whether the plugin asked for the object, and the object as it was then.
func (a *watchedAttributes) taken() (before runtime.Object, asked bool) {
	a.once.Do(func() {}) // orders a GetObject still running before the answer
	return a.before, a.asked
}

// decodedOptions are the request's options decoded once for an admission's plugins.
type decodedOptions struct {
	operation admissionv1.Operation
	raw       string
	options   runtime.Object
}

// admissionOptions is the request's options object for one plugin: decoded once per admission
// (the request does not change during it), each plugin given a copy of its own, as if decoded
// for it alone.
func admissionOptions(at *engine.Attributes) (runtime.Object, error) {
	req := at.Request
	if cached, ok := at.Value(decodedOptions{}).(*decodedOptions); ok && cached.operation == req.Operation && cached.raw == string(req.Options) {
		if cached.options == nil {
			return nil, nil
		}
		return cached.options.DeepCopyObject(), nil
	}
	options, err := operationOptions(req)
	if err != nil {
		return nil, err
	}
	at.SetValue(decodedOptions{}, &decodedOptions{operation: req.Operation, raw: string(req.Options), options: options})
	if options == nil {
		return nil, nil
	}
	return options.DeepCopyObject(), nil
}

// operationOptions is the request's options object, as the plugins receive it.
func operationOptions(req *engine.Request) (runtime.Object, error) {
	var options runtime.Object
	switch req.Operation {
	case admissionv1.Create:
		options = &metav1.CreateOptions{}
	case admissionv1.Update:
		options = &metav1.UpdateOptions{}
	case admissionv1.Delete:
		options = &metav1.DeleteOptions{}
	default:
		return nil, nil
	}
	if len(req.Options) > 0 {
		if err := json.Unmarshal(req.Options, options); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("decoding the request options: %v", err))
		}
	}
	return options, nil
}

// userKey keeps an admission's user (admissionUser).
type userKey struct{}

// admissionUser is the request's user as the plugins and the registry read it: made once per
// admission and shared by all of them, as kube-apiserver gives its whole chain one.
func admissionUser(ctx context.Context, req *engine.Request) user.Info {
	return engine.AdmissionState(ctx, userKey{}, func() any { return userInfo(req) }).(user.Info)
}

func userInfo(req *engine.Request) user.Info {
	extra := map[string][]string{}
	for k, v := range req.UserInfo.Extra {
		extra[k] = v
	}
	return &user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: extra}
}

// annotatedAttributes keeps the audit annotations a plugin adds, for the result.
type annotatedAttributes struct {
	admission.Attributes
	annotations [][2]string
}

func (a *annotatedAttributes) AddAnnotation(key, value string) error {
	return a.AddAnnotationWithLevel(key, value, auditinternal.LevelMetadata)
}

func (a *annotatedAttributes) AddAnnotationWithLevel(key, value string, level auditinternal.Level) error {
	if err := a.Attributes.AddAnnotationWithLevel(key, value, level); err != nil {
		return err
	}
	a.annotations = append(a.annotations, [2]string{key, value})
	return nil
}
