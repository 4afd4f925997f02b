//go:build unix

package review

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/dispatch/config"
	"github.com/admitkit/admit/webhook"
)

// reviewedLabel is what the benchmark's webhook adds to every object it admits.
const reviewedLabel = "bench.admit.dev/reviewed"

// BenchmarkReviewThroughput reviews a kustomize-shaped build (build: namespaces, LimitRanges,
// Deployments, NodePort Services, generateName ConfigMaps, custom resources of a CRD in the
// input, Pods, an admission policy) through the whole chain with the public Session, as
// `kustomize build | admit review -f -` does: parsing, the Session, every object's request and
// admission (decoding and defaults, the built-in plugins, the policy, preparation, storage).
// Without a webhook, and with one mutating webhook, served in this process over TLS on
// loopback, that every object goes through (it labels it, reading only its metadata).
//
// Every outcome is checked before the figures are reported: nothing failed, what was refused is
// what the input means to be refused, and with the webhook every admitted object carries its
// label. It reports objects/s (wall time, all cores), CPU per object and the process's peak RSS;
// `make bench` runs each size in a process of its own so that the peak is that size's.
//
//	go test -run '^$' -bench 'ReviewThroughput/objects=10000/webhook=one' -benchtime 1x ./review
func BenchmarkReviewThroughput(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, hooks := range []string{"none", "one"} {
			b.Run(fmt.Sprintf("objects=%d/webhook=%s", n, hooks), func(b *testing.B) {
				input := build(n)
				cfg := Config{Policies: policies(b), Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
				if hooks == "one" {
					cfg.Mutating = serveReviewWebhook(b)
				}
				var objects int
				load := loadAverage()
				cpu := processCPU()
				for b.Loop() {
					inputs, err := Parse("build.yaml", input)
					if err != nil {
						b.Fatal(err)
					}
					s, err := New(cfg, inputs)
					if err != nil {
						b.Fatal(err)
					}
					outcomes, err := s.Review(context.Background(), Write{}, inputs, nil)
					if err != nil {
						b.Fatal(err)
					}
					checkReviewOutcomes(b, outcomes, hooks == "one")
					objects += len(outcomes)
				}
				cpu = processCPU() - cpu
				b.ReportMetric(float64(objects)/b.Elapsed().Seconds(), "objects/s")
				b.ReportMetric(float64(cpu.Microseconds())/float64(objects), "cpu-µs/object")
				b.ReportMetric(float64(peakRSS())/(1<<20), "peak-rss-MiB")
				b.ReportMetric(load, "load1")
			})
		}
	}
}

// checkReviewOutcomes fails the benchmark unless every object was reviewed as build means it:
// refused only by the policy (ConfigMaps of an unlucky size) or by Pod Security (host network
// in a baseline namespace), and, with the webhook, every admitted object labelled by it.
func checkReviewOutcomes(b *testing.B, outcomes []*Outcome, webhook bool) {
	b.Helper()
	admitted := 0
	for _, o := range outcomes {
		switch {
		case o.Err != nil:
			b.Fatalf("%s: %v", o.Source, o.Err)
		case o.Result.Allowed:
			admitted++
			if labelled := bytes.Contains(o.Result.Object, []byte(`"`+reviewedLabel+`":"true"`)); labelled != webhook {
				b.Fatalf("%s: admitted, labelled by the webhook %v, want %v", o.Source, labelled, webhook)
			}
		case o.Object.GetKind() == "ConfigMap" && strings.Contains(o.Result.Status.Message, "unlucky size"),
			o.Object.GetKind() == "Pod" && strings.Contains(o.Result.Status.Message, "violates PodSecurity"):
		default:
			b.Fatalf("%s: refused: %s", o.Source, o.Result.Status.Message)
		}
	}
	if admitted < len(outcomes)*9/10 {
		b.Fatalf("only %d of %d objects admitted", admitted, len(outcomes))
	}
}

// serveReviewWebhook serves one mutating webhook for every resource on loopback over TLS until
// the benchmark ends, and returns its configuration as the apiserver stores it.
func serveReviewWebhook(b *testing.B) []*admissionregistrationv1.MutatingWebhookConfiguration {
	b.Helper()
	label := webhook.DefaulterFunc[*metav1.PartialObjectMetadata](func(_ context.Context, _ *webhook.Request, obj *metav1.PartialObjectMetadata) ([]string, error) {
		if obj.Labels == nil {
			obj.Labels = map[string]string{}
		}
		obj.Labels[reviewedLabel] = "true"
		return nil, nil
	})
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := registry.Register(webhook.Webhook{
		Name: "reviewed.bench.admit.dev", Type: webhook.TypeMutating, Path: "/label",
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
		}},
		Handler: webhook.DefaultingHandler[*metav1.PartialObjectMetadata](label),
	}); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	ca, err := certs.NewCA("admit review benchmark", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	if err := certs.WriteFiles(dir, ca, kp); err != nil {
		b.Fatal(err)
	}
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: "127.0.0.1:0", CertFile: filepath.Join(dir, certs.CertFileName), KeyFile: filepath.Join(dir, certs.KeyFileName),
		Handler: registry, GracePeriod: 5 * time.Second,
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
		if err := <-done; err != nil {
			b.Errorf("webhook server: %v", err)
		}
	})
	mutating, _, err := registry.Configurations(webhook.ConfigOptions{
		Name: "admit-review-bench", ClientConfig: webhook.ClientConfig{URL: "https://" + server.Addr().String(), CABundle: ca.CertPEM()},
	})
	if err != nil {
		b.Fatal(err)
	}
	config.SetDefaultsMutating(mutating)
	return []*admissionregistrationv1.MutatingWebhookConfiguration{mutating}
}

// loadAverage is the one-minute load average when the run started, to say what else the machine
// was doing; 0 where /proc/loadavg does not exist.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(data), " ")
	load, _ := strconv.ParseFloat(first, 64)
	return load
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's largest resident set so far, in bytes.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes there, KiB elsewhere
	}
	return int64(ru.Maxrss) << 10
}
