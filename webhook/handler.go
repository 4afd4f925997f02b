package webhook

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
)

// Handler decides one admission request. Implementations must be safe for concurrent use.
type Handler interface {
	Admit(ctx context.Context, req *Request) Response
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) Response

// Admit calls f.
func (f HandlerFunc) Admit(ctx context.Context, req *Request) Response { return f(ctx, req) }

var _ Handler = HandlerFunc(nil)

// Review versions a request can arrive in; the response is always sent in the same one.
const (
	ReviewV1      = "v1"
	ReviewV1beta1 = "v1beta1"
)

// Request is one admission request: the whole admission/v1 AdmissionRequest (v1beta1 has the same
// shape) and the AdmissionReview version it arrived in.
//
// Kind/Resource/SubResource describe the object as the webhook's rule matched it, which may be a
// different version than the client used (matchPolicy: Equivalent); RequestKind/RequestResource
// describe what the client sent. Object is null on DELETE (the object is in OldObject) and holds the
// options object (e.g. PodExecOptions) on CONNECT.
type Request struct {
	admissionv1.AdmissionRequest

	// ReviewVersion is ReviewV1 or ReviewV1beta1.
	ReviewVersion string
}

// IsDryRun reports whether the request will not be persisted; webhooks with side effects must skip them.
func (r *Request) IsDryRun() bool { return r.DryRun != nil && *r.DryRun }
