//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/internal/loopback"
	"github.com/admitkit/admit/webhook"
)

// latencyVariant is one way a write can travel: through no webhook, through the floor webhook
// (a server answering a precomputed patch), through admit's mutating webhook, or through it and
// a validating webhook. Each has its own namespace, and the configurations' namespaceSelectors
// pick the variants.
type latencyVariant struct {
	name      string
	namespace string
	labels    map[string]string
	// mutated says a webhook adds latencyInjectedLabel to what is created.
	mutated   bool
	latencies []time.Duration
}

// Labels the webhook configurations select namespaces by.
const (
	latencyFloorLabel    = "admit-latency/floor"
	latencyMutateLabel   = "admit-latency/mutate"
	latencyValidateLabel = "admit-latency/validate"
	latencyInjectedLabel = "admit-latency/defaulted"
)

// BenchmarkWebhookLatency measures the latency admit's webhooks add to writes through the real
// kube-apiserver: ConfigMap creates, one at a time, with no webhook, with the floor webhook
// (what any mutating webhook costs the apiserver: a server that decodes nothing and answers a
// precomputed patch adding the same label), with admit's mutating webhook (a typed defaulter
// adding the label) and with that plus a validating webhook. The variants are interleaved,
// rotating which goes first, so each sees the same load from the rest of the machine. It
// reports each variant's p50 and p99 as <variant>-p50-ms and <variant>-p99-ms; `make bench`
// feeds them to the benchmark report (docs/benchmarks.md).
//
//	go test -tags e2e -run '^$' -bench WebhookLatency -benchtime 2000x ./test/e2e/
//
// -benchtime Nx sets the creates per variant.
func BenchmarkWebhookLatency(b *testing.B) {
	ctx := b.Context()
	variants := []*latencyVariant{
		{name: "none"},
		{name: "floor", labels: map[string]string{latencyFloorLabel: "true"}, mutated: true},
		{name: "mutating", labels: map[string]string{latencyMutateLabel: "true"}, mutated: true},
		{name: "mutating-validating", labels: map[string]string{latencyMutateLabel: "true", latencyValidateLabel: "true"}, mutated: true},
	}
	suffix := fmt.Sprint(time.Now().UnixNano() % 1_000_000)
	for _, v := range variants {
		v.namespace = "latency-" + v.name + "-" + suffix
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: v.namespace, Labels: v.labels}}
		if _, err := env.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			b.Fatalf("creating namespace %s: %v", v.namespace, err)
		}
	}
	// The harness's own client must not throttle: a client-side rate limiter would add its wait
	// to every variant and hide what the webhooks cost.
	cfg := rest.CopyConfig(env.RESTConfig)
	cfg.QPS, cfg.RateLimiter = -1, nil
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	installLatencyWebhooks(b, ctx)

	create := func(v *latencyVariant, name string) (time.Duration, error) {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app.kubernetes.io/name": "latency"}},
			Data:       map[string]string{"app.conf": "mode=production\nworkers=4\n", "feature-flags": "a=true,b=false"},
		}
		start := time.Now()
		got, err := client.CoreV1().ConfigMaps(v.namespace).Create(ctx, cm, metav1.CreateOptions{})
		elapsed := time.Since(start)
		if err != nil {
			return 0, fmt.Errorf("%s: creating %s: %w", v.name, name, err)
		}
		if _, defaulted := got.Labels[latencyInjectedLabel]; defaulted != v.mutated {
			return 0, fmt.Errorf("%s: %s has labels %v: the webhooks did not run as configured", v.name, name, got.Labels)
		}
		return elapsed, nil
	}
	// Warm up every path (connections to etcd and to the webhooks, caches) before measuring.
	for i := range 100 {
		for _, v := range variants {
			if _, err := create(v, fmt.Sprintf("warmup-%d", i)); err != nil {
				b.Fatal(err)
			}
		}
	}

	i := 0
	for b.Loop() {
		for j := range variants {
			v := variants[(i+j)%len(variants)]
			d, err := create(v, fmt.Sprintf("cm-%d", i))
			if err != nil {
				b.Fatal(err)
			}
			v.latencies = append(v.latencies, d)
		}
		i++
	}
	for _, v := range variants {
		slices.Sort(v.latencies)
		b.ReportMetric(percentileMillis(v.latencies, 0.50), v.name+"-p50-ms")
		b.ReportMetric(percentileMillis(v.latencies, 0.99), v.name+"-p99-ms")
	}
}

// installLatencyWebhooks serves admit's webhooks for the benchmark and registers them with the
// apiserver, waiting until both take effect.
func installLatencyWebhooks(b *testing.B, ctx context.Context) {
	b.Helper()
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	for _, w := range []webhook.Webhook{
		{Name: "latency-defaults.e2e.admit.dev", Type: webhook.TypeMutating, Kind: configMapKind, Resource: "configmaps",
			Handler: webhook.DefaultingHandler[*corev1.ConfigMap](webhook.DefaulterFunc[*corev1.ConfigMap](
				func(_ context.Context, _ *webhook.Request, cm *corev1.ConfigMap) ([]string, error) {
					if cm.Labels == nil {
						cm.Labels = map[string]string{}
					}
					cm.Labels[latencyInjectedLabel] = "true"
					return nil, nil
				}))},
		{Name: "latency-checks.e2e.admit.dev", Type: webhook.TypeValidating, Kind: configMapKind, Resource: "configmaps",
			Handler: webhook.ValidatingHandler[*corev1.ConfigMap](latencyValidator{})},
	} {
		if err := registry.Register(w); err != nil {
			b.Fatal(err)
		}
	}
	url, caPEM := serveLatencyWebhooks(b, registry)
	mutating, validating, err := registry.Configurations(webhook.ConfigOptions{
		Name: "admit-latency", ClientConfig: webhook.ClientConfig{URL: url, CABundle: caPEM},
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range mutating.Webhooks {
		mutating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{latencyMutateLabel: "true"}}
	}
	for i := range validating.Webhooks {
		validating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{latencyValidateLabel: "true"}}
	}
	// The floor's configuration is admit's mutating one (same rules, policies, timeout) pointing
	// at the floor server, for the floor's namespace.
	floorURL, floorCA := serveLatencyFloor(b)
	floor := mutating.DeepCopy()
	floor.Name = "admit-latency-floor"
	floorPath := floorURL + "/floor"
	for i := range floor.Webhooks {
		w := &floor.Webhooks[i]
		w.Name = "floor-" + w.Name
		w.ClientConfig.URL = &floorPath
		w.ClientConfig.CABundle = floorCA
		w.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{latencyFloorLabel: "true"}}
	}
	api := env.Client.AdmissionregistrationV1()
	for _, cfg := range []*admissionregistrationv1.MutatingWebhookConfiguration{mutating, floor} {
		if _, err := api.MutatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			_ = api.MutatingWebhookConfigurations().Delete(context.Background(), cfg.Name, metav1.DeleteOptions{})
		})
	}
	if _, err := api.ValidatingWebhookConfigurations().Create(ctx, validating, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = api.ValidatingWebhookConfigurations().Delete(context.Background(), validating.Name, metav1.DeleteOptions{})
	})

	// Readiness markers: dry-run creates only the webhooks can change or refuse.
	marker := func(ns string, data map[string]string) (*corev1.ConfigMap, error) {
		// Labelled as the benchmark's ConfigMaps are: the floor's precomputed patch adds to them.
		return env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "marker",
			Labels: map[string]string{"app.kubernetes.io/name": "latency"}}, Data: data},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	suffix := fmt.Sprint(time.Now().UnixNano() % 1_000_000)
	probe, floorProbe := "latency-probe-"+suffix, "latency-floor-probe-"+suffix
	for name, labels := range map[string]map[string]string{
		probe:      {latencyMutateLabel: "true", latencyValidateLabel: "true"},
		floorProbe: {latencyFloorLabel: "true"},
	} {
		if _, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}},
			metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		cm, mutateErr := marker(probe, nil)
		_, validateErr := marker(probe, map[string]string{latencyRefusedKey: ""})
		floored, floorErr := marker(floorProbe, nil)
		if mutateErr == nil && cm.Labels[latencyInjectedLabel] == "true" && validateErr != nil &&
			floorErr == nil && floored.Labels[latencyInjectedLabel] == "true" {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the webhook configurations did not take effect within 30s: mutating: %v, labels %v; validating: %v; floor: %v, labels %v",
				mutateErr, cm.GetLabels(), validateErr, floorErr, floored.GetLabels())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// latencyRefusedKey is the only thing the validating webhook refuses: the readiness marker.
const latencyRefusedKey = "refused-by-admit-latency"

// latencyValidator checks every key, as a typical validating webhook would, and refuses one.
type latencyValidator struct{}

func (latencyValidator) ValidateCreate(_ context.Context, _ *webhook.Request, cm *corev1.ConfigMap) ([]string, error) {
	var errs field.ErrorList
	for key := range cm.Data {
		if key == latencyRefusedKey {
			errs = append(errs, field.Forbidden(field.NewPath("data").Key(key), "refused for the readiness check"))
		}
	}
	return nil, webhook.Invalid(errs)
}

func (v latencyValidator) ValidateUpdate(ctx context.Context, req *webhook.Request, _, cm *corev1.ConfigMap) ([]string, error) {
	return v.ValidateCreate(ctx, req, cm)
}

func (latencyValidator) ValidateDelete(context.Context, *webhook.Request, *corev1.ConfigMap) ([]string, error) {
	return nil, nil
}

// serveLatencyWebhooks runs registry in a webhook.Server on loopback with a fresh CA until the
// benchmark ends, and returns its URL and CA.
func serveLatencyWebhooks(b *testing.B, registry *webhook.Registry) (string, []byte) {
	b.Helper()
	dir, caBundle := loopback.Certs(b, "admit-latency")
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: "127.0.0.1:0", CertFile: filepath.Join(dir, certs.CertFileName), KeyFile: filepath.Join(dir, certs.KeyFileName),
		Handler: registry, GracePeriod: 10 * time.Second,
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := server.Listen(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			b.Logf("webhook server: %v", err)
		}
	})
	return "https://" + server.Addr().String(), caBundle
}

// serveLatencyFloor runs the floor webhook on loopback until the benchmark ends and returns its
// URL and CA: a net/http TLS server, HTTP/1.1 only and with the timeouts of admit's server, that
// reads the review and answers with a precomputed patch adding latencyInjectedLabel. It decodes
// nothing: the request's uid, which the apiserver requires in the answer, is found by a byte
// search. Any mutating webhook costs the apiserver at least what this one does.
func serveLatencyFloor(b *testing.B) (string, []byte) {
	b.Helper()
	dir, caBundle := loopback.Certs(b, "admit-latency-floor")
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, certs.CertFileName), filepath.Join(dir, certs.KeyFileName))
	if err != nil {
		b.Fatal(err)
	}
	p := `[{"op":"add","path":"/metadata/labels/` + strings.ReplaceAll(latencyInjectedLabel, "/", "~1") + `","value":"true"}]`
	head := []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`)
	tail := []byte(`","allowed":true,"patchType":"JSONPatch","patch":"` + base64.StdEncoding.EncodeToString([]byte(p)) + `"}}`)
	uidKey := []byte(`"request":{"uid":"`)
	var buffers sync.Pool
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf, _ := buffers.Get().(*bytes.Buffer)
		if buf == nil {
			buf = new(bytes.Buffer)
		}
		defer buffers.Put(buf)
		buf.Reset()
		if _, err := buf.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body := buf.Bytes()
		at := bytes.Index(body, uidKey)
		if at < 0 {
			http.Error(w, "no request uid", http.StatusBadRequest)
			return
		}
		uid := body[at+len(uidKey):]
		uid = uid[:max(bytes.IndexByte(uid, '"'), 0)]
		answer := make([]byte, 0, len(head)+len(uid)+len(tail))
		answer = append(append(append(answer, head...), uid...), tail...)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	server := &http.Server{
		Handler:           handler,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}},
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
	}
	done := make(chan error, 1)
	go func() { done <- server.ServeTLS(ln, "", "") }()
	b.Cleanup(func() {
		_ = server.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			b.Logf("floor server: %v", err)
		}
	})
	return "https://" + ln.Addr().String(), caBundle
}

// percentileMillis returns the nearest-rank percentile p of sorted latencies, in milliseconds.
func percentileMillis(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p*float64(len(sorted)))) - 1
	d := sorted[min(max(rank, 0), len(sorted)-1)]
	return float64(d) / float64(time.Millisecond)
}
