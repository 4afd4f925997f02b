package dispatch

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/typedjson"
	"github.com/admitkit/admit/resources"
)

// Options configure the webhooks of an admission chain. Configurations must already carry the
// v1 defaults (the config package applies them when loading).
type Options struct {
	Mutating   []*admissionregistrationv1.MutatingWebhookConfiguration
	Validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	// Namespaces answers namespaceSelector lookups; default StaticNamespaces{} (every namespace
	// exists with its name label only).
	Namespaces NamespaceSource
	// Resources enables matchPolicy Equivalent; without it only exact rules match.
	Resources ResourceMapper
	// Converter converts objects for webhooks matched through an equivalent version.
	Converter Converter
	// Conditions compiles matchConditions; required when a webhook has them.
	Conditions ConditionCompiler
	// ServiceResolver maps service references to addresses; default <name>.<namespace>.svc:<port>.
	ServiceResolver ServiceResolver
	// Transport, when set, carries every webhook call instead of a TLS connection per client
	// configuration (no dialing, no certificate check): for tests that serve the webhooks in
	// process (webhook/webhooktest). The calls, their timeouts and answers are otherwise the same.
	Transport http.RoundTripper
	// Codec reads an object a mutating webhook patched as kube-apiserver does (its Patched):
	// decoded into the kind's Go type and defaulted. Without it a patched object stays the JSON
	// the patch made, only checked to decode into its Go type. A Dispatcher also decodes the
	// request's objects and stores the admitted one with it (engine.Pipeline.Codec).
	Codec   engine.Codec
	Metrics *Metrics
	Logger  *slog.Logger
	// NewUID returns the UID of each webhook call; default random UUIDs.
	NewUID func() string
	// Now is the clock for durations; default time.Now.
	Now func() time.Time
	// MaxRequestBodyBytes is a Dispatcher's request body limit (engine.Pipeline's).
	MaxRequestBodyBytes int64
}

// Webhooks are the webhooks of an admission chain, compiled once: its mutating phase's step
// (MutatingAdmissionWebhook) and its validating phase's (ValidatingAdmissionWebhook), which an
// engine.Pipeline runs among its other steps. They keep HTTP connections to webhooks between
// admissions and are safe for concurrent admissions.
type Webhooks struct {
	mutating, validating []*hook
	namespaces           NamespaceSource
	resources            ResourceMapper
	converter            Converter
	codec                engine.Codec
	clients              *clientCache
	// answers decodes the webhooks' AdmissionReviews in one pass where it can (see decodeResponse).
	answers *typedjson.Decoder
	// types knows the Go types of built-in kinds: a patched object must still decode into its
	// kind's type, as the apiserver requires.
	types       *runtime.Scheme
	typeChecker *typeChecker
	metrics     *Metrics
	logger      *slog.Logger
	newUID      func() string
	now         func() time.Time
}

// maxPatchCopyBytes bounds how much a webhook's patch may grow an object through "copy"
// operations: kube-apiserver's default (--json-patch-max-copy-bytes is 3 MiB), which it sets as
// gopkg.in/evanphx/json-patch.v4's process-wide limit. A patch over it fails the request with
// evanphx's error, as in the apiserver; without it an 838-byte patch grows an object to MiBs.
const maxPatchCopyBytes int64 = 3 << 20

// limitPatchCopies sets evanphx's limit the way kube-apiserver does: only lowering it, so a
// stricter limit set by the embedding program stays.
func limitPatchCopies() {
	for {
		existing := atomic.LoadInt64(&jsonpatch.AccumulatedCopySizeLimit)
		if existing > 0 && existing <= maxPatchCopyBytes {
			return
		}
		if atomic.CompareAndSwapInt64(&jsonpatch.AccumulatedCopySizeLimit, existing, maxPatchCopyBytes) {
			return
		}
	}
}

// NewWebhooks compiles the webhooks of opts: selectors and matchConditions once.
func NewWebhooks(opts Options) (*Webhooks, error) {
	limitPatchCopies()
	m, v, err := newHooks(opts.Mutating, opts.Validating, opts.Conditions)
	if err != nil {
		return nil, err
	}
	w := &Webhooks{
		mutating: m, validating: v,
		namespaces: opts.Namespaces, resources: opts.Resources, converter: opts.Converter, codec: opts.Codec,
		clients: newClientCache(opts.ServiceResolver, opts.Transport), answers: new(typedjson.Decoder), metrics: opts.Metrics, logger: opts.Logger,
		newUID: opts.NewUID, now: opts.Now,
	}
	w.types, w.typeChecker = resources.Types(), &typeChecker{}
	if w.namespaces == nil {
		w.namespaces = StaticNamespaces{}
	}
	if w.logger == nil {
		w.logger = slog.New(slog.DiscardHandler)
	}
	if w.newUID == nil {
		w.newUID = func() string { return uuid.NewString() }
	}
	if w.now == nil {
		w.now = time.Now
	}
	return w, nil
}

// Mutating is the mutating phase's webhooks step: every mutating webhook in order, with the
// apiserver's reinvocation.
func (w *Webhooks) Mutating() engine.MutatingStep { return mutatingWebhooks{w} }

// Validating is the validating phase's webhooks step: every matching validating webhook, in
// parallel.
func (w *Webhooks) Validating() engine.ValidatingStep { return validatingWebhooks{w} }

// Dispatcher runs admissions through webhook configurations alone: an engine.Pipeline of the
// webhooks' two steps (and of opts.Codec, when given). A program that runs Kubernetes' code
// around the webhooks builds its own Pipeline (package review does).
type Dispatcher struct {
	pipeline *engine.Pipeline
}

// New builds a Dispatcher, compiling selectors and matchConditions once.
func New(opts Options) (*Dispatcher, error) {
	w, err := NewWebhooks(opts)
	if err != nil {
		return nil, err
	}
	return &Dispatcher{pipeline: &engine.Pipeline{
		Codec: opts.Codec, Mutating: []engine.MutatingStep{w.Mutating()}, Validating: []engine.ValidatingStep{w.Validating()},
		MaxRequestBodyBytes: opts.MaxRequestBodyBytes, Now: opts.Now, Logger: opts.Logger, Observe: opts.Metrics.observeStep,
	}}, nil
}

// Admit runs req through the webhooks and returns what the apiserver would decide. The error is
// only for a malformed Request; a rejection is a Result with Allowed false.
func (d *Dispatcher) Admit(ctx context.Context, req *engine.Request) (*engine.Result, error) {
	return d.pipeline.Admit(ctx, req)
}
