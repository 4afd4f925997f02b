package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/admitkit/admit/patch"
)

// Options configure a Dispatcher. Configurations must already carry the v1 defaults (the
// config package applies them when loading).
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
	// Codec decodes and defaults objects as kube-apiserver does: the request's objects before
	// admission and every object a mutating webhook patched. Without it objects stay the JSON
	// given and patched (a patched built-in object is only checked to decode into its Go type).
	Codec Codec
	// Plugins are in-process steps in kube-apiserver's order: mutating plugins run before the
	// mutating webhooks in every round, validating plugins before the validating webhooks.
	Plugins []Plugin
	// PluginsAfterWebhooks are validating plugins that run after the validating webhooks, where
	// kube-apiserver runs ResourceQuota.
	PluginsAfterWebhooks []ValidatingPlugin
	// Preparer runs between the mutating and the validating phase (CREATE and UPDATE).
	Preparer Preparer
	Metrics  *Metrics
	Logger   *slog.Logger
	// NewUID returns the UID of each webhook call; default random UUIDs.
	NewUID func() string
	// Now is the clock for durations; default time.Now.
	Now func() time.Time
	// MaxRequestBodyBytes is the largest object a CREATE or UPDATE may send, as kube-apiserver's
	// --max-request-body-bytes; default DefaultMaxRequestBodyBytes, negative for no limit.
	MaxRequestBodyBytes int64
}

// DefaultMaxRequestBodyBytes is kube-apiserver's limit on a request body: 3 MiB.
const DefaultMaxRequestBodyBytes int64 = 3 << 20

// Dispatcher runs admissions through webhook configurations. It is safe for concurrent use and
// keeps HTTP connections to webhooks between admissions.
type Dispatcher struct {
	mutating, validating []*hook
	namespaces           NamespaceSource
	resources            ResourceMapper
	converter            Converter
	codec                Codec
	mutatingPlugins      []MutatingPlugin
	validatingPlugins    []ValidatingPlugin
	pluginsAfter         []ValidatingPlugin
	preparer             Preparer
	clients              *clientCache
	// types knows the Go types of built-in kinds: a patched object must still decode into its
	// kind's type, as the apiserver requires.
	types       *runtime.Scheme
	typeChecker *typeChecker
	metrics     *Metrics
	logger      *slog.Logger
	newUID      func() string
	now         func() time.Time
	// maxBody is the request body limit; 0 for none.
	maxBody int64
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

// New builds a Dispatcher, compiling selectors and matchConditions once.
func New(opts Options) (*Dispatcher, error) {
	limitPatchCopies()
	m, v, err := newHooks(opts.Mutating, opts.Validating, opts.Conditions)
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{
		mutating: m, validating: v,
		namespaces: opts.Namespaces, resources: opts.Resources, converter: opts.Converter, codec: opts.Codec,
		pluginsAfter: opts.PluginsAfterWebhooks, preparer: opts.Preparer,
		clients: newClientCache(opts.ServiceResolver, opts.Transport), metrics: opts.Metrics, logger: opts.Logger,
		newUID: opts.NewUID, now: opts.Now, maxBody: opts.MaxRequestBodyBytes,
	}
	switch {
	case d.maxBody == 0:
		d.maxBody = DefaultMaxRequestBodyBytes
	case d.maxBody < 0:
		d.maxBody = 0
	}
	for _, p := range opts.Plugins {
		m, mutating := p.(MutatingPlugin)
		v, validating := p.(ValidatingPlugin)
		if !mutating && !validating {
			return nil, fmt.Errorf("plugin %s is neither a MutatingPlugin nor a ValidatingPlugin", p.Name())
		}
		if mutating {
			d.mutatingPlugins = append(d.mutatingPlugins, m)
		}
		if validating {
			d.validatingPlugins = append(d.validatingPlugins, v)
		}
	}
	d.types, d.typeChecker = runtime.NewScheme(), &typeChecker{}
	if err := clientgoscheme.AddToScheme(d.types); err != nil {
		return nil, fmt.Errorf("registering the built-in types: %w", err)
	}
	if d.namespaces == nil {
		d.namespaces = StaticNamespaces{}
	}
	if d.logger == nil {
		d.logger = slog.New(slog.DiscardHandler)
	}
	if d.newUID == nil {
		d.newUID = func() string { return uuid.NewString() }
	}
	if d.now == nil {
		d.now = time.Now
	}
	return d, nil
}

// Admit runs req through the admission chain and returns what the apiserver would decide: the
// Codec's decoding, the mutating phase (plugins, then webhooks, with reinvocation), the
// Preparer, then the validating phase (plugins, webhooks, plugins after the webhooks). Stages
// that are not configured are left out. The error is only for a malformed Request; a rejection
// is a Result with Allowed false.
func (d *Dispatcher) Admit(ctx context.Context, req *Request) (*Result, error) {
	if err := req.validate(); err != nil {
		return nil, fmt.Errorf("invalid admission request: %w", err)
	}
	a := newAdmission(d, req)
	ctx = withAdmission(ctx, a)

	start := d.now()
	err := a.readBody()
	if err == nil {
		err = a.decode(ctx)
	}
	decoded := a.object
	if err == nil {
		err = a.mutate(ctx)
	}
	mutated := a.object
	d.metrics.observeStep("admit", req.Operation, d.now().Sub(start), err != nil)
	if err == nil {
		err = a.prepare(ctx)
	}
	var rejections []error
	if err == nil {
		start = d.now()
		rejections = a.validate(ctx)
		if len(rejections) > 0 {
			err = rejections[0]
		}
		d.metrics.observeStep("validate", req.Operation, d.now().Sub(start), err != nil)
	}
	if err == nil {
		err = a.store(ctx)
	}

	result := &Result{
		Allowed:          err == nil,
		Object:           a.object,
		Warnings:         a.warnings.list(),
		AuditAnnotations: a.annotations,
		Webhooks:         a.sortedWebhooks(),
		Decoded:          decoded,
		Mutated:          mutated,
	}
	if result.Warnings == nil {
		result.Warnings = []string{}
	}
	if err != nil {
		result.Status = statusOf(err)
		if len(rejections) > 1 {
			for _, r := range rejections {
				result.Rejections = append(result.Rejections, *statusOf(r))
			}
		}
	}
	// Nothing to diff when nothing replaced the object.
	if len(req.Object) > 0 && len(a.object) > 0 && string(req.Object) != string(a.object) {
		p, perr := patch.Diff(req.Object, a.object)
		if perr != nil {
			return nil, fmt.Errorf("computing the patch from the submitted object to the admitted one: %w", perr)
		}
		result.Patch = p
	}
	if result.Patch == nil {
		result.Patch = patch.Patch{}
	}
	return result, nil
}

// readBody refuses an object larger than the request body limit, as kube-apiserver's handler
// does while reading the body, before anything else runs.
func (a *admission) readBody() error {
	if limit := a.d.maxBody; limit > 0 && int64(len(a.req.Object)) > limit {
		a.object = nil // never read: the result does not echo it
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
	}
	return nil
}

// decode starts the admission with the Codec's reading of the request's objects.
func (a *admission) decode(ctx context.Context) error {
	if a.d.codec == nil {
		return nil
	}
	decoded, err := a.d.codec.Decode(ctx, a.req)
	if err != nil {
		return err
	}
	a.object, a.oldObject = decoded.Object, decoded.OldObject
	for _, w := range decoded.Warnings {
		a.warnings.add(w)
	}
	return nil
}

// store makes the admitted object what the storage returns, with the Codec.
func (a *admission) store(ctx context.Context) error {
	op := a.req.Operation
	if a.d.codec == nil || len(a.object) == 0 || (op != admissionv1.Create && op != admissionv1.Update) {
		return nil
	}
	stored, err := a.d.codec.Stored(ctx, a.req, a.object)
	if err != nil {
		return asStatusError(err)
	}
	a.object = stored
	return nil
}

// prepare runs the Preparer on a CREATE or UPDATE, after the generated name of a generateName
// CREATE is set: the apiserver's registry names the object before validating admission, so
// validating webhooks and the admitted object carry the name — unless mutating admission named
// it already: the registry generates a name only for an object that still has none.
func (a *admission) prepare(ctx context.Context) error {
	if name := objectName(a.object); name != "" {
		a.name = name
	} else if a.req.GeneratedName != "" && len(a.object) > 0 {
		named, err := withName(a.object, a.req.GeneratedName)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("naming the object %q: %w", a.req.GeneratedName, err))
		}
		a.object, a.name = named, a.req.GeneratedName
	}
	p := a.d.preparer
	op := a.req.Operation
	if p == nil || len(a.object) == 0 || (op != admissionv1.Create && op != admissionv1.Update) {
		return nil
	}
	err := a.runPlugin(p, rowOrder{phase: phasePreparation}, func(at *Attributes) error { return p.Prepare(ctx, at) })
	if err == nil {
		if name := objectName(a.object); name != "" {
			a.name = name
		}
	}
	return err
}
