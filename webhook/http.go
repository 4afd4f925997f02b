package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync"
	"time"
	"unicode/utf8"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/internal/typedjson"
	"github.com/admitkit/admit/webhook/internal/wire"
)

// DefaultMaxRequestBytes bounds an AdmissionReview body. An UPDATE review carries the object twice;
// etcd limits an object to about 1.5 MB by default and at most about 3 MB when raised, so two
// objects plus the request's envelope fit in 7 MiB.
const DefaultMaxRequestBytes int64 = 7 << 20

// HTTPOptions configure the HTTP adapter of one webhook.
type HTTPOptions struct {
	// MaxRequestBytes bounds the request body; larger requests get 413. Zero means DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// Logger receives one record per admission; nil discards. Allowed and patched requests are
	// logged at Debug, denials at Info, failures and panics at Error.
	Logger *slog.Logger
	// Metrics records admission metrics; nil records nothing.
	Metrics *Metrics
	// PropagatePanics lets a panic in the handler crash the goroutine as net/http would handle it,
	// instead of answering 500 and counting it. For tests that want the stack trace.
	PropagatePanics bool
	// Scheme is a Registry's: the Scheme of every webhook registered without one (Webhook.Scheme),
	// given once for a server whose types one Scheme knows, as a controller-runtime manager's.
	// webhooktest finds typed objects' kinds in it too. NewHTTPHandler does not use it.
	Scheme *runtime.Scheme
}

// NewHTTPHandler serves an admission webhook with h. label names the handler in metrics and
// logs: it is not the webhook's name in its configuration (a Registry uses the webhook's path,
// which is unique on the server). The returned handler:
//   - answers 405 to anything but POST, 415 unless the Content-Type is application/json (parameters
//     such as charset are accepted), 413 when the body exceeds the limit — checked from
//     Content-Length before reading, and while reading — and 400 for an empty or undecodable body,
//     an unknown AdmissionReview version, or a review without a request;
//   - decodes admission.k8s.io/v1 and v1beta1 AdmissionReviews and answers in the same version,
//     always echoing the request UID;
//   - answers Errored responses and recovered panics with 500;
//   - writes every reply as JSON with Content-Type application/json; error replies are a
//     metav1.Status saying what was wrong.
func NewHTTPHandler(label string, h Handler, opts HTTPOptions) http.Handler {
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &httpHandler{name: label, handler: h, opts: opts, logger: logger}
}

type httpHandler struct {
	name    string
	handler Handler
	opts    HTTPOptions
	logger  *slog.Logger
	// buffers reuses request bodies: AdmissionReviews are often tens of kilobytes.
	buffers sync.Pool
	// envelopes decodes reviews' envelopes in one pass (see decodeEnvelopeFast).
	envelopes typedjson.Decoder
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	buf, _ := h.buffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	defer h.buffers.Put(buf)
	if refusal := wire.ReadBody(w, r, h.opts.MaxRequestBytes, buf, "admission reviews"); refusal != nil {
		h.refuse(w, refusal.Code, refusal.Reason, refusal.Message)
		return
	}
	req, err := decodeReview(buf.Bytes(), &h.envelopes)
	if err != nil {
		h.refuse(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	}

	done := h.opts.Metrics.startRequest(h.name)
	resp := h.admit(r.Context(), req)
	if resp.Outcome == "" {
		resp.Outcome = OutcomeAllowed // a zero Response admits
	}
	resp.Warnings = sanitizeWarnings(resp.Warnings)
	status, body, err := EncodeResponse(req, resp)
	if err != nil {
		resp = Errored(fmt.Errorf("encoding the response: %w", err))
		status, body, _ = EncodeResponse(req, resp)
	}
	wire.WriteJSON(w, status, body)
	done()

	elapsed := time.Since(start)
	h.opts.Metrics.observe(h.name, string(req.Operation), resp.Outcome, elapsed, len(resp.Warnings))
	h.log(r.Context(), req, resp, elapsed)
}

// admit calls the handler, turning a panic into an Errored response unless panics propagate.
func (h *httpHandler) admit(ctx context.Context, req *Request) (resp Response) {
	if !h.opts.PropagatePanics {
		defer func() {
			if v := recover(); v != nil {
				h.opts.Metrics.panicked(h.name)
				h.logger.LogAttrs(ctx, slog.LevelError, "webhook handler panicked",
					slog.String("webhook", h.name), slog.String("uid", string(req.UID)),
					slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
				resp = Errored(panicError{value: v})
			}
		}()
	}
	return h.handler.Admit(ctx, req)
}

func (h *httpHandler) refuse(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	h.opts.Metrics.badRequest(h.name, code)
	h.logger.LogAttrs(context.Background(), slog.LevelWarn, "refused admission request",
		slog.String("webhook", h.name), slog.Int("code", code), slog.String("error", message))
	wire.WriteStatus(w, &wire.Refusal{Code: code, Reason: reason, Message: message})
}

func (h *httpHandler) log(ctx context.Context, req *Request, resp Response, elapsed time.Duration) {
	level := slog.LevelDebug
	switch resp.Outcome {
	case OutcomeDenied:
		level = slog.LevelInfo
	case OutcomeError:
		level = slog.LevelError
	}
	if !h.logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("webhook", h.name),
		slog.String("uid", string(req.UID)),
		slog.String("kind", req.Kind.String()),
		slog.String("namespace", req.Namespace),
		slog.String("name", req.Name),
		slog.String("operation", string(req.Operation)),
		slog.String("outcome", resp.Outcome.String()),
		slog.Duration("duration", elapsed),
	}
	if resp.Status != nil {
		attrs = append(attrs, slog.Int("code", int(resp.Status.Code)), slog.String("message", resp.Status.Message))
	}
	h.logger.LogAttrs(ctx, level, "admission", attrs...)
}

// reviewEnvelope is an AdmissionReview of either version: v1 and v1beta1 have the same shape.
type reviewEnvelope struct {
	metav1.TypeMeta `json:",inline"`
	Request         *admissionv1.AdmissionRequest `json:"request"`
}

const admissionGroup = "admission.k8s.io"

// DecodeReview decodes an admission.k8s.io/v1 or v1beta1 AdmissionReview. Field names are matched
// case-sensitively, as the apiserver does. The objects stay raw, so patches can be computed against
// exactly what was sent.
func DecodeReview(body []byte) (*Request, error) {
	return decodeReview(body, nil)
}

// decodeReview is DecodeReview with dec, when not nil, decoding the envelope in one pass.
func decodeReview(body []byte, dec *typedjson.Decoder) (*Request, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errors.New("request body is empty: expected an AdmissionReview")
	}
	if err := checkUTF8(body); err != nil {
		return nil, fmt.Errorf("decoding AdmissionReview: %w", err)
	}
	review, ok := decodeEnvelopeFast(body, dec)
	if !ok {
		if err := decodeStrict(body, &review); err != nil {
			return nil, fmt.Errorf("decoding AdmissionReview: %w", err)
		}
	}
	var version string
	switch review.APIVersion {
	case admissionGroup + "/" + ReviewV1:
		version = ReviewV1
	case admissionGroup + "/" + ReviewV1beta1:
		version = ReviewV1beta1
	default:
		return nil, fmt.Errorf("unsupported AdmissionReview apiVersion %q: expected admission.k8s.io/v1 or admission.k8s.io/v1beta1", review.APIVersion)
	}
	if review.Kind != "AdmissionReview" {
		return nil, fmt.Errorf("unsupported kind %q: expected AdmissionReview", review.Kind)
	}
	if review.Request == nil {
		return nil, errors.New("AdmissionReview has no request")
	}
	if review.Request.UID == "" {
		return nil, errors.New("AdmissionReview request has no uid")
	}
	return &Request{AdmissionRequest: *review.Request, ReviewVersion: version}, nil
}

// Decoders read some JSON differently: invalid UTF-8 is replaced by some and refused by others,
// and of two duplicate keys the first wins in some and the last in others. A webhook that
// validated one reading of a request while the apiserver stores another would be a
// parser-differential hole, so such input is refused, saying where.

// checkUTF8 refuses a body that is not valid UTF-8, naming the first bad byte's position.
func checkUTF8(body []byte) error {
	if utf8.Valid(body) {
		return nil
	}
	offset := 0
	for offset < len(body) {
		r, size := utf8.DecodeRune(body[offset:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		offset += size
	}
	line, col := position(body, int64(offset))
	return fmt.Errorf("line %d, column %d: the body is not valid UTF-8", line, col)
}

// decodeStrict decodes case-sensitively, keeping integers, and refuses duplicate keys among the
// fields it decodes.
func decodeStrict(data []byte, into any) error {
	strict, err := kjson.UnmarshalStrict(data, into, kjson.DisallowDuplicateFields)
	if err != nil {
		return describeJSONError(data, err)
	}
	if len(strict) > 0 {
		return errors.Join(strict...)
	}
	return nil
}

// describeJSONError adds the line and column of a syntax or type error to err.
func describeJSONError(body []byte, err error) error {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		// sigs.k8s.io/json reports syntax errors with its own type; the standard decoder finds
		// the same error with an offset.
		var raw json.RawMessage
		if stdErr := json.Unmarshal(body, &raw); stdErr != nil {
			errors.As(stdErr, &syntax)
		}
	}
	if syntax != nil {
		// A syntax error's offset is just past the byte that broke the syntax.
		line, col := position(body, max(syntax.Offset-1, 0))
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		line, col := position(body, typeErr.Offset)
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	return err
}

func position(body []byte, offset int64) (line, col int) {
	if offset > int64(len(body)) {
		offset = int64(len(body))
	}
	line = 1 + bytes.Count(body[:offset], []byte("\n"))
	col = int(offset) - bytes.LastIndexByte(body[:offset], '\n')
	return line, col
}

// EncodeResponse renders resp as the HTTP status and JSON body answering req: an AdmissionReview in
// req's version (200), or for Errored responses a metav1.Status (500).
func EncodeResponse(req *Request, resp Response) (int, []byte, error) {
	if resp.Outcome == "" {
		resp.Outcome = OutcomeAllowed
	}
	if resp.Outcome == OutcomeError {
		status := metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError}
		if resp.Status != nil {
			status = *resp.Status
		}
		return int(status.Code), wire.StatusBody(status), nil
	}
	out := admissionv1.AdmissionResponse{
		UID:              req.UID,
		Allowed:          resp.Outcome == OutcomeAllowed || resp.Outcome == OutcomePatched,
		Warnings:         resp.Warnings,
		AuditAnnotations: resp.AuditAnnotations,
	}
	switch resp.Outcome {
	case OutcomeDenied:
		out.Result = resp.Status
	case OutcomePatched:
		p, err := json.Marshal(resp.Patch)
		if err != nil {
			return 0, nil, fmt.Errorf("encoding patch: %w", err)
		}
		jsonPatch := admissionv1.PatchTypeJSONPatch
		out.Patch, out.PatchType = p, &jsonPatch
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionGroup + "/" + req.ReviewVersion, Kind: "AdmissionReview"},
		Response: &out,
	})
	if err != nil {
		return 0, nil, fmt.Errorf("encoding AdmissionReview: %w", err)
	}
	return http.StatusOK, body, nil
}
