package servers

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"time"

	"github.com/wI2L/jsondiff"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/admitkit/admit/bench"
)

// handwrittenMaxBody bounds a review as controller-runtime and admit do (7 MiB: two objects of
// etcd's largest size, and the envelope).
const handwrittenMaxBody = 7 << 20

// HandwrittenHandler is the Pod defaulter as a careful engineer writes it without a webhook
// framework: net/http, encoding/json into admissionv1.AdmissionReview and corev1.Pod, the same
// mutation, and the JSON Patch computed by wI2L/jsondiff between the object as received and the
// mutated Pod serialised again. It checks what a production handler must (method, content type,
// body size, a request to answer) and answers in the request's AdmissionReview version.
//
// jsondiff rather than gomodules/jsonpatch: it is the faster of the two on this Pod (see the
// Diff benchmarks in docs/benchmarks.md), so this is the stronger limit.
func HandwrittenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "only POST is served", http.StatusMethodNotAllowed)
			return
		}
		if mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mediaType != "application/json" {
			http.Error(w, "the body must be application/json", http.StatusUnsupportedMediaType)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, handwrittenMaxBody))
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil {
			http.Error(w, "decoding the AdmissionReview: "+err.Error(), http.StatusBadRequest)
			return
		}
		if review.Request == nil {
			http.Error(w, "the AdmissionReview has no request", http.StatusBadRequest)
			return
		}
		response := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if p, err := handwrittenPatch(review.Request); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		} else if len(p) > 0 {
			patchType := admissionv1.PatchTypeJSONPatch
			response.Patch, response.PatchType = p, &patchType
		}
		out, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: response})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}

// handwrittenPatch decodes the Pod, mutates it and returns the JSON Patch, or nil when nothing
// changed; other operations than CREATE and UPDATE are allowed as they are.
func handwrittenPatch(req *admissionv1.AdmissionRequest) ([]byte, error) {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return nil, nil
	}
	var pod corev1.Pod
	if err := json.Unmarshal(req.Object.Raw, &pod); err != nil {
		return nil, fmt.Errorf("decoding the Pod: %w", err)
	}
	bench.Inject(&pod)
	mutated, err := json.Marshal(&pod)
	if err != nil {
		return nil, fmt.Errorf("encoding the Pod: %w", err)
	}
	ops, err := jsondiff.CompareJSON(req.Object.Raw, mutated)
	if err != nil {
		return nil, fmt.Errorf("computing the patch: %w", err)
	}
	if len(ops) == 0 {
		return nil, nil
	}
	return json.Marshal(ops)
}

// startHandwritten serves HandwrittenHandler at MutatePath on a plain net/http TLS server.
func startHandwritten(ctx context.Context, certDir string) (*Running, error) {
	cfg, err := serverTLS(certDir)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(MutatePath, HandwrittenHandler())
	return serveTLS(ctx, mux, cfg)
}

// serveTLS serves handler with cfg on a free loopback port, HTTP/1.1 only, until ctx is done or
// the returned server is stopped.
func serveTLS(ctx context.Context, handler http.Handler, cfg *tls.Config) (*Running, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening: %w", err)
	}
	server := &http.Server{
		Handler:           handler,
		TLSConfig:         cfg,
		ReadHeaderTimeout: 10 * time.Second,
		// A non-nil, empty map keeps HTTP/2 off, as on the other servers.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	done := make(chan error, 1)
	go func() { done <- server.ServeTLS(ln, "", "") }()
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			server.Close()
		case <-stopped:
		}
	}()
	return &Running{URL: "https://" + ln.Addr().String(), stop: func() error {
		close(stopped)
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := server.Shutdown(shutdownCtx)
		if serveErr := <-done; !errors.Is(serveErr, http.ErrServerClosed) {
			err = errors.Join(err, serveErr)
		}
		return err
	}}, nil
}
