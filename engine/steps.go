package engine

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The steps of kube-apiserver's admission of a write. A Pipeline runs what it is given of them,
// in its order; without a Codec, objects stay the JSON given and patched.

// Step is one step of the chain: a built-in admission plugin, the admission policies of a kind,
// the webhooks of a phase.
type Step interface {
	// Name is the step's name in the result's rows, e.g. "ServiceAccount".
	Name() string
}

// Typed is an optional interface of a Step: the type its rows have in the result (e.g.
// TypeAdmissionPlugin, TypeValidatingPolicy). The default is TypePlugin.
type Typed interface {
	Type() RowType
}

// MutatingStep runs in every round of the mutating phase. It may change the object with
// Attributes.SetObject and ask for another round with RequireReinvocation; in that round every
// mutating step runs again, and decides with IsReinvoke what to do (kube-apiserver runs its
// in-tree plugins again, the webhooks and policies that must see the change).
type MutatingStep interface {
	Step
	Admit(ctx context.Context, at *Attributes) error
}

// ValidatingStep runs in the validating phase. It may not change the object. An error rejects
// the request with its status (a non-status error is an internal error); Rejections reject with
// the first and list all.
type ValidatingStep interface {
	Step
	Validate(ctx context.Context, at *Attributes) error
}

// Preparer is what kube-apiserver's registry does between mutating and validating admission of
// a CREATE or UPDATE: system metadata, the kind's preparation for storage and its own
// validation. The Pipeline names a generateName CREATE first.
type Preparer interface {
	Step
	Prepare(ctx context.Context, at *Attributes) error
}

// Codec is how kube-apiserver reads objects: decoding into the kind's Go type (or a custom
// resource's schema), defaulting, and converting through its internal version.
type Codec interface {
	// Decode turns a request's objects into what admission starts with, as the apiserver's
	// handler does before admission: the object as the client sent it, decoded, defaulted and
	// converted through the internal version, and the old object as the storage returns it. The
	// warnings are the decoder's; an error is the status the client receives.
	Decode(ctx context.Context, req *Request) (*Decoded, error)
	// Patched is what the apiserver does with an object a mutating webhook patched, in kind (the
	// version the webhook was called with): decode it into kind's Go type and default it.
	// changed reports whether the decoded object, before defaulting, differs from before.
	Patched(ctx context.Context, kind schema.GroupVersionKind, before, patched json.RawMessage) (object json.RawMessage, changed bool, err error)
	// Stored is the admitted object as the storage writes it and reads it back, which is what
	// the client receives.
	Stored(ctx context.Context, req *Request, object json.RawMessage) (json.RawMessage, error)
}

// Decoded is what admission starts with.
type Decoded struct {
	Object, OldObject json.RawMessage
	Warnings          []string
}

// Converter converts an object to another version of its kind, as the apiserver converts for a
// webhook or policy matched through an equivalent resource.
type Converter interface {
	Convert(ctx context.Context, object json.RawMessage, to schema.GroupVersionKind) (json.RawMessage, error)
}
