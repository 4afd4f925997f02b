package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/admitkit/admit/patch"
)

// Mutator is an in-process mutating step that runs before the webhooks in each round, as the
// apiserver's built-in admission plugins do. It returns the object, changed or not. When a
// webhook changes the object, the whole chain runs a second time (reinvocation), mutators included.
type Mutator interface {
	Name() string
	Mutate(ctx context.Context, req *Request, object json.RawMessage) (json.RawMessage, error)
}

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
	// Mutators run in-process before the webhooks of each mutating round.
	Mutators []Mutator
	Metrics  *Metrics
	Logger   *slog.Logger
	// NewUID returns the UID of each webhook call; default random UUIDs.
	NewUID func() string
	// Now is the clock for durations; default time.Now.
	Now func() time.Time
}

// Dispatcher runs admissions through webhook configurations. It is safe for concurrent use and
// keeps HTTP connections to webhooks between admissions.
type Dispatcher struct {
	mutating, validating []*hook
	namespaces           NamespaceSource
	resources            ResourceMapper
	converter            Converter
	mutators             []Mutator
	clients              *clientCache
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

// New builds a Dispatcher, compiling selectors and matchConditions once.
func New(opts Options) (*Dispatcher, error) {
	limitPatchCopies()
	m, v, err := newHooks(opts.Mutating, opts.Validating, opts.Conditions)
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{
		mutating: m, validating: v,
		namespaces: opts.Namespaces, resources: opts.Resources, converter: opts.Converter, mutators: opts.Mutators,
		clients: newClientCache(opts.ServiceResolver), metrics: opts.Metrics, logger: opts.Logger,
		newUID: opts.NewUID, now: opts.Now,
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

// Admit runs req through the mutating webhooks (with reinvocation), then the validating
// webhooks, and returns what the apiserver would decide. The error is only for a malformed
// Request; a rejection is a Result with Allowed false.
func (d *Dispatcher) Admit(ctx context.Context, req *Request) (*Result, error) {
	if err := req.validate(); err != nil {
		return nil, fmt.Errorf("invalid admission request: %w", err)
	}
	a := &admission{d: d, req: req, name: req.Name, annotations: map[string]string{}}
	if len(req.Object) > 0 {
		a.object = req.Object
	}
	if reason := exemptReason(req); reason != "" {
		return a.exempt(reason), nil
	}

	start := d.now()
	err := a.mutate(ctx)
	d.metrics.observeStep("admit", req.Operation, d.now().Sub(start), err != nil)
	var rejections []error
	if err == nil {
		if req.GeneratedName != "" {
			// The apiserver names the object before validating admission: validating webhooks
			// and the admitted object carry the generated name.
			a.name = req.GeneratedName
			named, nameErr := withName(a.object, req.GeneratedName)
			if nameErr != nil {
				return nil, fmt.Errorf("naming the object %q: %w", req.GeneratedName, nameErr)
			}
			a.object = named
		}
		start = d.now()
		rejections = a.validate(ctx)
		if len(rejections) > 0 {
			err = rejections[0]
		}
		d.metrics.observeStep("validate", req.Operation, d.now().Sub(start), err != nil)
	}

	result := &Result{
		Allowed:          err == nil,
		Object:           a.object,
		Warnings:         a.warnings.list(),
		AuditAnnotations: a.annotations,
		Webhooks:         a.sortedWebhooks(),
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
	// Nothing to diff when no webhook or mutator replaced the object.
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
