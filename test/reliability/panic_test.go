package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/test/reliability/loadgen"
	"github.com/admitkit/admit/webhook"
)

// panicEvery is how often the panicking handler panics: on every request whose number is a
// multiple of it.
const panicEvery = 7

// panickingHandler loads a webhook.Server whose handler panics on every
// seventh request. Promise: exactly those requests get a 500 carrying a Status, every other
// request is answered normally, the server stays up, and admit_webhook_panics_total counts
// exactly the panics.
func panickingHandler(t *testing.T, m *measurements) {
	p := currentProfile()
	pki := newServingPKI(t)
	dir := t.TempDir()
	if err := certs.WriteFiles(dir, pki.ca, pki.serving); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	metrics, err := webhook.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	registry := webhook.NewRegistry(webhook.HTTPOptions{Metrics: metrics})
	err = registry.Register(webhook.Webhook{
		Name: "panics.reliability.admit.dev", Type: webhook.TypeValidating,
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: "pods",
		Handler: webhook.HandlerFunc(func(_ context.Context, req *webhook.Request) webhook.Response {
			if requestNumber(string(req.UID))%panicEvery == 0 {
				panic(fmt.Sprintf("request %s hit a bug", req.UID))
			}
			return webhook.Allowed()
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: "127.0.0.1:0", CertFile: filepath.Join(dir, certs.CertFileName), KeyFile: filepath.Join(dir, certs.KeyFileName),
		Handler: registry, Gatherer: reg, Metrics: metrics, GracePeriod: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	base := "https://" + server.Addr().String()
	url := base + webhook.Path(webhook.TypeValidating, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})

	report, err := loadgen.Run(context.Background(), loadgen.Options{
		NewRequest: func(seq int) (*http.Request, error) {
			return postReview(url, podReview(fmt.Sprintf("panic-%d", seq), "nginx"))
		},
		Check: func(seq int, resp *http.Response, body []byte) error {
			if seq%panicEvery == 0 {
				return checkPanicAnswer(resp, body)
			}
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"allowed":true`) {
				return fmt.Errorf("HTTP %d %s, want 200 and allowed", resp.StatusCode, body)
			}
			return nil
		},
		TLS: tlsConfig(pki.ca), Rate: p.rate, Duration: p.panicDuration, Connections: p.connections,
	})
	if err != nil {
		t.Fatal(err)
	}
	m.Logf("load: %s", report)
	total := len(report.Records)
	wantPanics := (total + panicEvery - 1) / panicEvery
	if got := report.Count(loadgen.OK); got != total || total != int(float64(p.rate)*p.panicDuration.Seconds()) {
		t.Errorf("%d of %d requests answered as expected: %q", got, total, report.Errors(5))
	}

	health, err := tlsClient(pki).Get(base + "/healthz")
	if err != nil {
		t.Fatalf("the server is down after %d panics: %v", wantPanics, err)
	}
	health.Body.Close()
	if health.StatusCode != http.StatusOK {
		t.Errorf("/healthz answered %d after the panics", health.StatusCode)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := counterValue(families, "admit_webhook_panics_total")
	if got != float64(wantPanics) {
		t.Errorf("admit_webhook_panics_total is %v, want %d", got, wantPanics)
	}
	m.Logf("%d panics answered 500, %d other requests answered 200; admit_webhook_panics_total %v", wantPanics, total-wantPanics, got)
}

// requestNumber is the number at the end of a uid such as "panic-14".
func requestNumber(uid string) int {
	n, err := strconv.Atoi(uid[strings.LastIndexByte(uid, '-')+1:])
	if err != nil {
		return -1
	}
	return n
}

// checkPanicAnswer expects the 500 and Status a recovered panic becomes.
func checkPanicAnswer(resp *http.Response, body []byte) error {
	var status metav1.Status
	if err := json.Unmarshal(body, &status); err != nil {
		return fmt.Errorf("HTTP %d, body is not a Status: %s", resp.StatusCode, body)
	}
	if resp.StatusCode != http.StatusInternalServerError || status.Kind != "Status" || status.Code != http.StatusInternalServerError ||
		!strings.Contains(status.Message, "panicked") {
		return fmt.Errorf("HTTP %d %s, want 500 and a Status saying the handler panicked", resp.StatusCode, body)
	}
	return nil
}

// tlsClient is an HTTP/1.1 client trusting pki's CA.
func tlsClient(pki servingPKI) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig(pki.ca)}}
}
