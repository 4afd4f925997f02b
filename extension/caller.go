package extension

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/admitkit/admit/internal/callout"
)

const (
	// DefaultMaxConcurrency bounds how many extensions CallAll calls at once.
	DefaultMaxConcurrency = 8
	// DefaultMaxResponseBytes bounds the body of an answer; a larger one is a calling error.
	DefaultMaxResponseBytes = 10 << 20
	// DefaultMetricsQueueSize is how many call observations may wait for the metrics sink
	// before new ones are dropped (and counted).
	DefaultMetricsQueueSize = 1024
)

// Options configure a Caller. The zero value works: no logs, metrics on a private registry, no
// namespace lookups, cluster DNS for service references.
type Options struct {
	// Logger receives errors (always), the extensions called (slog.LevelDebug) and their answers
	// (LevelTrace). nil discards logs.
	Logger *slog.Logger
	// Metrics is where the admit_extension_ metrics are registered. nil keeps them on a private
	// registry, unexposed.
	Metrics prometheus.Registerer
	// Namespaces answers namespace label lookups for namespaceSelectors. It is needed only when
	// an extension has a non-empty selector.
	Namespaces NamespaceLabeler
	// Resolver turns service references into URLs; nil means ClusterDNS.
	Resolver ServiceResolver
	// MaxConcurrency bounds concurrent calls in one CallAll; 0 means DefaultMaxConcurrency.
	MaxConcurrency int
	// MaxResponseBytes bounds an answer's body; 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MetricsQueueSize bounds the observations waiting for the metrics sink; 0 means
	// DefaultMetricsQueueSize.
	MetricsQueueSize int
}

// Caller calls the extensions of a Registry. It is safe for concurrent use; Close it when done.
type Caller struct {
	registry         *Registry
	log              *slog.Logger
	namespaces       NamespaceLabeler
	resolver         ServiceResolver
	maxConcurrency   int
	maxResponseBytes int64
	clients          callout.Clients[clientKey]
	metrics          *metricsRecorder
}

// NewCaller returns a Caller for the extensions of registry. It fails when the metrics cannot be
// registered (for example twice on one registry) or an option is negative.
func NewCaller(registry *Registry, opts Options) (*Caller, error) {
	metrics := newPrometheusMetrics()
	return newCaller(registry, opts, metrics, metrics.collectors())
}

// newCaller lets tests substitute the metrics sink.
func newCaller(registry *Registry, opts Options, sink observer, collectors []prometheus.Collector) (*Caller, error) {
	if registry == nil {
		return nil, errors.New("creating extension caller: registry is nil")
	}
	if opts.MaxConcurrency < 0 || opts.MaxResponseBytes < 0 || opts.MetricsQueueSize < 0 {
		return nil, fmt.Errorf("creating extension caller: MaxConcurrency (%d), MaxResponseBytes (%d) and MetricsQueueSize (%d) may not be negative",
			opts.MaxConcurrency, opts.MaxResponseBytes, opts.MetricsQueueSize)
	}
	c := &Caller{
		registry:         registry,
		log:              opts.Logger,
		namespaces:       opts.Namespaces,
		resolver:         opts.Resolver,
		maxConcurrency:   cmp.Or(opts.MaxConcurrency, DefaultMaxConcurrency),
		maxResponseBytes: cmp.Or(opts.MaxResponseBytes, DefaultMaxResponseBytes),
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.resolver == nil {
		c.resolver = ClusterDNS
	}
	reg := opts.Metrics
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	metrics, err := newMetricsRecorder(reg, cmp.Or(opts.MetricsQueueSize, DefaultMetricsQueueSize), sink, collectors)
	if err != nil {
		return nil, fmt.Errorf("creating extension caller: %w", err)
	}
	c.metrics = metrics
	return c, nil
}

// Close flushes the metrics and closes idle connections. Calls made after Close still work but
// are no longer counted.
func (c *Caller) Close() {
	c.metrics.close()
	c.clients.CloseIdleConnections()
}

// Request is one invocation of a hook.
type Request struct {
	// Hook is the hook invoked; only extensions serving it are called.
	Hook Hook
	// Namespace is the namespace of the object the hook is about, for namespaceSelectors; ""
	// for a cluster-scoped object (selectors are then not applied).
	Namespace string
	// Body is encoded as JSON and POSTed to each extension.
	Body any
}

// Call calls the extension registered as name and returns its decoded answer.
//
//   - It answered Success: the response and nil.
//   - It answered Failure: the response and an *FailureError carrying its message.
//   - It could not give a valid answer (transport error, timeout, non-200, undecodable body):
//     with failurePolicy Fail, nil and an *CallingError naming the extension and the
//     cause; with Ignore, a zero response with status Success (no message, no RetryAfter) and
//     nil — the error is logged at error level and counted. The caller's own context ending is
//     never ignored.
//   - The namespaceSelector does not select req.Namespace: nil and a *NotSelectedError.
//
// Other errors (unknown extension, hook mismatch, namespace lookup, request encoding) are plain
// and never subject to the failure policy.
func Call[R any, PR ResponsePointer[R]](ctx context.Context, c *Caller, name string, req Request) (PR, error) {
	p, ok := c.registry.lookup(name)
	if !ok {
		return nil, fmt.Errorf("calling extension %q: not registered", name)
	}
	if p.Hook != req.Hook {
		return nil, fmt.Errorf("calling extension %q: it serves hook %s, not %s", name, p.Hook, req.Hook)
	}
	namespace := namespaceLabelsOnce{labeler: c.namespaces, namespace: req.Namespace}
	selected, err := namespace.selects(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("calling extension %q: %w", name, err)
	}
	if !selected {
		return nil, &NotSelectedError{Extension: name, Namespace: req.Namespace}
	}
	body, err := json.Marshal(req.Body)
	if err != nil {
		return nil, fmt.Errorf("calling extension %q: encoding request for hook %s: %w", name, req.Hook, err)
	}
	resp := PR(new(R))
	result := c.call(ctx, p, body, resp)
	var callingErr *CallingError
	switch {
	case result.ignored != nil:
		answerSuccess(resp)
	case errors.As(result.err, &callingErr):
		return nil, result.err
	}
	return resp, result.err
}

// callResult is what one call of one extension produced.
type callResult struct {
	err     error         // *CallingError (not ignored), *FailureError or nil
	ignored *CallingError // the error failurePolicy Ignore swallowed; resp must be reset
}

// call applies the failure policy around exchange, and logs and measures the call. resp is left
// as decoded; when result.ignored is set the caller resets it with answerSuccess.
func (c *Caller) call(ctx context.Context, p *registered, body []byte, resp Response) callResult {
	start := time.Now()
	code, raw, callingErr := c.exchange(ctx, p, body, resp)
	obs := observation{extension: p.Name, hook: p.Hook.String(), policy: p.policy}
	var result callResult
	switch {
	case callingErr != nil:
		ignore := p.policy == FailurePolicyIgnore && callingErr.Reason != ReasonCallerContext
		obs.reason = callingErr.Reason
		if ignore {
			obs.outcome, result.ignored = outcomeIgnored, callingErr
		} else {
			obs.outcome, result.err = outcomeError, callingErr
		}
		c.log.LogAttrs(ctx, slog.LevelError, "calling extension failed",
			slog.String("extension", p.Name), slog.String("hook", obs.hook),
			slog.String("reason", string(callingErr.Reason)), slog.String("failurePolicy", string(p.policy)),
			slog.Bool("ignored", ignore), slog.Any("error", callingErr))
	default:
		common := resp.Common()
		if c.log.Enabled(ctx, LevelTrace) {
			c.log.LogAttrs(ctx, LevelTrace, "extension answered",
				slog.String("extension", p.Name), slog.String("hook", obs.hook), slog.Int("httpStatus", code),
				slog.String("status", string(common.Status)), slog.String("message", common.Message),
				slog.Int("retryAfterSeconds", int(common.RetryAfterSeconds)),
				slog.Duration("duration", time.Since(start)), slog.String("body", quoteBody(raw)))
		}
		obs.outcome = outcomeSuccess
		if common.Status == StatusFailure {
			obs.outcome = outcomeFailure
			result.err = &FailureError{Extension: p.Name, Hook: p.Hook, Message: common.Message, RetryAfterSeconds: common.RetryAfterSeconds}
			c.log.LogAttrs(ctx, slog.LevelError, "extension answered Failure",
				slog.String("extension", p.Name), slog.String("hook", obs.hook), slog.String("message", common.Message))
		}
	}
	obs.duration = time.Since(start)
	c.metrics.record(obs)
	return result
}

// answerSuccess makes resp what an ignored extension answers: Success, nothing else. The whole
// response is zeroed, not only the common fields, so nothing half-decoded reaches the caller.
func answerSuccess[R any, PR ResponsePointer[R]](resp PR) {
	var zero R
	*resp = zero
	resp.Common().Status = StatusSuccess
}

// exchange POSTs body to p within p's timeout and decodes the answer into resp. It returns the
// HTTP status, the raw answer and an *CallingError when no valid answer was obtained.
func (c *Caller) exchange(ctx context.Context, p *registered, body []byte, resp Response) (int, []byte, *CallingError) {
	callingErr := func(reason CallingErrorReason, code int, err error) *CallingError {
		return &CallingError{Extension: p.Name, Hook: p.Hook, Reason: reason, StatusCode: code, Err: err}
	}
	target, serverName := p.url, ""
	if svc := p.ClientConfig.Service; svc != nil {
		resolved, err := c.resolver(ctx, *svc)
		if err == nil && resolved == nil {
			err = errors.New("the resolver returned no URL")
		}
		if err != nil {
			return 0, nil, callingErr(ReasonResolve, 0, fmt.Errorf("resolving service %s/%s: %w", svc.Namespace, svc.Name, err))
		}
		target, serverName = resolved, svc.serverName()
	}
	client, err := c.client(p.ClientConfig.CABundle, serverName)
	if err != nil {
		// Unreachable for registered extensions (their caBundle was validated); reported as a
		// transport error because no request could be sent.
		return 0, nil, callingErr(ReasonTransport, 0, fmt.Errorf("building HTTP client: %w", err))
	}

	timeoutErr := fmt.Errorf("no answer within the extension's timeout of %s: %w", p.timeout, context.DeadlineExceeded)
	callCtx, cancel := context.WithTimeoutCause(ctx, p.timeout, timeoutErr)
	defer cancel()
	deadline, _ := callCtx.Deadline()
	target = callout.WithTimeout(target, time.Until(deadline))
	c.log.LogAttrs(ctx, slog.LevelDebug, "calling extension",
		slog.String("extension", p.Name), slog.String("hook", p.Hook.String()),
		slog.String("url", target.Redacted()), slog.Duration("timeout", p.timeout))

	code, raw, reason, err := c.post(callCtx, client, target, body)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		// The caller's deadline or cancellation, whichever error the transport reported.
		return code, nil, callingErr(ReasonCallerContext, code,
			fmt.Errorf("POST %s: caller's context ended: %w", target.Redacted(), context.Cause(ctx)))
	case context.Cause(callCtx) == timeoutErr:
		return code, nil, callingErr(ReasonTimeout, code, fmt.Errorf("POST %s: %w", target.Redacted(), timeoutErr))
	default:
		return code, nil, callingErr(reason, code, err)
	}
	if err := decodeResponse(raw, resp); err != nil {
		// An answer cut short because a deadline fired is a timeout, not a malformed answer: the
		// server may end its body cleanly when it sees the connection give up.
		switch {
		case ctx.Err() != nil:
			return code, raw, callingErr(ReasonCallerContext, code,
				fmt.Errorf("POST %s: caller's context ended: %w", target.Redacted(), context.Cause(ctx)))
		case context.Cause(callCtx) == timeoutErr:
			return code, raw, callingErr(ReasonTimeout, code, fmt.Errorf("POST %s: %w", target.Redacted(), timeoutErr))
		}
		return code, raw, callingErr(ReasonDecode, code, err)
	}
	return code, raw, nil
}

// post sends one request and reads the answer.
func (c *Caller) post(ctx context.Context, client *http.Client, target *url.URL, body []byte) (int, []byte, CallingErrorReason, error) {
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, ReasonTransport, fmt.Errorf("building request: %w", err)
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "application/json")
	httpResp, err := client.Do(httpReq)
	if err != nil {
		return 0, nil, ReasonTransport, err
	}
	defer httpResp.Body.Close()
	raw, reason, err := readAnswer(httpResp, c.maxResponseBytes)
	return httpResp.StatusCode, raw, reason, err
}

// decodeResponse decodes a 200 answer into resp and checks its common fields.
func decodeResponse(raw []byte, resp Response) error {
	if err := json.Unmarshal(raw, resp); err != nil {
		return fmt.Errorf("decoding response: %w", err)
	}
	if err := resp.Common().validate(); err != nil {
		return fmt.Errorf("invalid response: %w", err)
	}
	return nil
}
