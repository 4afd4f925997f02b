package servers

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/webhook"
)

// BenchmarkHandlers times each server's handler on the benchmark review in this process,
// without TLS or sockets: the admission work alone, for profiling (-cpuprofile) between runs of
// the harness, which measures the servers themselves.
func BenchmarkHandlers(b *testing.B) {
	podJSON, err := bench.PodJSON()
	if err != nil {
		b.Fatal(err)
	}
	review, err := bench.AdmissionReview(bench.ReviewUID, podJSON)
	if err != nil {
		b.Fatal(err)
	}
	registry, err := AdmitRegistry(webhook.HTTPOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctrllog.SetLogger(logr.Discard())
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	crMux := http.NewServeMux()
	crMux.Handle(MutatePath, admission.WithDefaulter[*corev1.Pod](scheme, crInjector{}))
	for _, h := range []struct {
		kind    Kind
		handler http.Handler
	}{{Admit, registry}, {Handwritten, HandwrittenHandler()}, {ControllerRuntime, crMux}} {
		b.Run(string(h.kind), func(b *testing.B) {
			serve := func() []byte {
				req := httptest.NewRequest(http.MethodPost, MutatePath, bytes.NewReader(review))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.handler.ServeHTTP(rec, req)
				return rec.Body.Bytes()
			}
			if err := bench.CheckResponse(serve(), bench.ReviewUID, podJSON); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				serve()
			}
		})
	}
}
