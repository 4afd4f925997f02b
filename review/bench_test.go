//go:build unix

package review

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/internal/benchinput"
	"github.com/admitkit/admit/internal/loopback"
	"github.com/admitkit/admit/resources"
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
// The objects are parsed once, whole, then streamed (Session.Stream) in batches of
// reviewBatch: each batch's requests built, admitted, its outcomes checked and dropped before
// the next, so that what is held is the parsed input and one batch, not every outcome. What a
// Session gives the objects under review as applied together — the build's CRD, its Namespaces
// and LimitRanges, the namespaces its objects live in — is what streamState finds in the parsed
// input, as a caller that reads its input twice gives it; every outcome is the one
// Session.Review gives (TestStreamedReviewIsReview). All of it — parsing, the Session, the
// first pass, the requests, the admissions, the checks — is timed.
//
// Every outcome is checked as its batch ends: nothing failed, what was refused is what the
// input means to be refused, and with the webhook every admitted object carries its label. It
// reports objects/s (wall time, all cores), CPU per object and the process's peak RSS;
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
					var tally reviewTally
					err := streamReview(cfg, "build.yaml", input, func(outcomes []*Outcome) error {
						return tally.check(outcomes, hooks == "one")
					})
					if err != nil {
						b.Fatal(err)
					}
					if err := tally.done(); err != nil {
						b.Fatal(err)
					}
					objects += tally.objects
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

// reviewBatch is how many objects the benchmark admits at a time: enough to keep the
// Session's concurrency busy, few enough that a batch's outcomes are a small part of memory.
const reviewBatch = 256

// streamReview reviews the objects of data as one Session.Review of them would, through a
// Stream, batch by batch: each batch's outcomes are given to batch, then dropped.
func streamReview(cfg Config, label string, data []byte, batch func([]*Outcome) error) error {
	inputs, err := Parse(label, data)
	if err != nil {
		return err
	}
	live, namespaces := streamState(inputs)
	cfg.Live = append(append([]*unstructured.Unstructured(nil), cfg.Live...), live...)
	s, err := New(cfg, inputs)
	if err != nil {
		return err
	}
	ctx := context.Background()
	stream, err := s.Batches(ctx, namespaces)
	if err != nil {
		return err
	}
	defer stream.Close()
	for start := 0; start < len(inputs); start += reviewBatch {
		outcomes, err := s.Requests(inputs[start:min(start+reviewBatch, len(inputs))], nil, Write{})
		if err != nil {
			return err
		}
		if err := stream.Admit(ctx, outcomes); err != nil {
			return err
		}
		if err := batch(outcomes); err != nil {
			return err
		}
	}
	return nil
}

// streamState is what a first pass over the parsed input finds for a Stream: the objects of
// the kinds other objects' admission reads (resources.StateKinds: here the Namespaces and LimitRanges),
// as Session.Review applies them for the others, and the namespaces the objects' requests live
// in (a Namespace's request in its own; every namespaced object of build names its namespace).
func streamState(inputs []Input) (live []*unstructured.Unstructured, namespaces []string) {
	seen := map[string]bool{}
	for _, in := range inputs {
		gk := in.Object.GroupVersionKind().GroupKind()
		if resources.IsState(gk) && in.Object.GetName() != "" {
			live = append(live, in.Object.DeepCopy())
		}
		ns := in.Object.GetNamespace()
		if gk == (schema.GroupKind{Kind: "Namespace"}) {
			ns = in.Object.GetName()
		}
		if ns != "" && !seen[ns] {
			seen[ns] = true
			namespaces = append(namespaces, ns)
		}
	}
	sort.Strings(namespaces)
	return live, namespaces
}

// reviewTally checks outcomes as they arrive, keeping only counts: nothing failed, refused
// only by the policy (ConfigMaps of an unlucky size) or by Pod Security (host network in a
// baseline namespace), and, with the webhook, every admitted object labelled by it.
type reviewTally struct {
	objects, admitted int
}

func (t *reviewTally) check(outcomes []*Outcome, webhook bool) error {
	for _, o := range outcomes {
		t.objects++
		switch {
		case o.Err != nil:
			return fmt.Errorf("%s: %v", o.Source, o.Err)
		case o.Result.Allowed:
			t.admitted++
			if labelled := bytes.Contains(o.Result.Object, []byte(`"`+reviewedLabel+`":"true"`)); labelled != webhook {
				return fmt.Errorf("%s: admitted, labelled by the webhook %v, want %v", o.Source, labelled, webhook)
			}
		case o.Object.GetKind() == "ConfigMap" && strings.Contains(o.Result.Status.Message, "unlucky size"),
			o.Object.GetKind() == "Pod" && strings.Contains(o.Result.Status.Message, "violates PodSecurity"):
		default:
			return fmt.Errorf("%s: refused: %s", o.Source, o.Result.Status.Message)
		}
	}
	return nil
}

// done checks the whole run: most objects admitted.
func (t *reviewTally) done() error {
	if t.admitted < t.objects*9/10 {
		return fmt.Errorf("only %d of %d objects admitted", t.admitted, t.objects)
	}
	return nil
}

// The benchmark's stream gives every outcome Session.Review gives for the same objects, with or
// without the webhook: the same work is measured.
func TestStreamedReviewIsReview(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews 1,200 objects")
	}
	input := build(600)
	for _, hooks := range []string{"none", "one"} {
		t.Run("webhook="+hooks, func(t *testing.T) {
			cfg := Config{Policies: policies(t), Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
			if hooks == "one" {
				cfg.Mutating = serveReviewWebhook(t)
			}
			inputs, err := Parse("build.yaml", input)
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(cfg, inputs)
			if err != nil {
				t.Fatal(err)
			}
			outcomes, err := s.Review(context.Background(), Write{}, inputs, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := outcomeStrings(t, outcomes)
			var got []string
			var tally reviewTally
			if err := streamReview(cfg, "build.yaml", input, func(outcomes []*Outcome) error {
				got = append(got, outcomeStrings(t, outcomes)...)
				return tally.check(outcomes, hooks == "one")
			}); err != nil {
				t.Fatal(err)
			}
			if err := tally.done(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("streamed outcomes differ from Session.Review's (-review +stream):\n%s", diff)
			}
		})
	}
}

// serveReviewWebhook serves one mutating webhook for every resource on loopback over TLS until
// the benchmark ends, and returns its configuration as the apiserver stores it.
func serveReviewWebhook(b testing.TB) []*admissionregistrationv1.MutatingWebhookConfiguration {
	b.Helper()
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := benchinput.RegisterLabeller(registry, reviewedLabel); err != nil {
		b.Fatal(err)
	}
	dir, caPEM := loopback.Certs(b, "admit review benchmark")
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
		Name: "admit-review-bench", ClientConfig: webhook.ClientConfig{URL: "https://" + server.Addr().String(), CABundle: caPEM},
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
