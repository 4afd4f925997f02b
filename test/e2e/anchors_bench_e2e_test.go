//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/internal/benchinput"
	"github.com/admitkit/admit/webhook"
)

// anchorLabel is what the anchors' mutating webhook adds to every object it admits.
const anchorLabel = "bench.admit.dev/reviewed"

// BenchmarkReviewAnchors measures `admit review` against what users would run instead, on the
// same objects (benchinput's kustomize-shaped build, ADMIT_ANCHOR_OBJECTS of them, default
// 5,000) with the same admission policy, without and with one mutating webhook that every
// object goes through:
//
//   - kube-apiserver itself: every object sent to the suite's real kube-apiserver as a
//     server-side dry-run create, what `kubectl apply --dry-run=server` does, eight at a time;
//     the CPU per object of the apiserver process and of etcd, read from /proc (and the
//     apiserver's CPU when idle, over as long, to say what of it is its background work);
//   - `admit review --summary` of the build, the binary as users run it: its CPU per object;
//   - kubectl-validate (the KUBECTL_VALIDATE binary, which `make bench-anchors` installs), the
//     offline schema check users run, on the same file: its CPU per object (without the
//     webhook only: it calls none).
//
// The answers are compared while at it: each object admitted or refused alike, with the same
// message (a generated name aside), and, with the webhook, labelled by it alike. A difference
// fails the benchmark. The build's CRD, Namespaces and LimitRanges (and each namespace's
// default ServiceAccount, which kube-controller-manager would create) are created for real
// first: the objects' dry runs read them.
//
//	KUBECTL_VALIDATE=... go test -tags e2e -run '^$' -bench ReviewAnchors -benchtime 1x ./test/e2e/
func BenchmarkReviewAnchors(b *testing.B) {
	n := 5000
	if s := os.Getenv("ADMIT_ANCHOR_OBJECTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 100 {
			b.Fatalf("ADMIT_ANCHOR_OBJECTS=%q: give a number of objects, 100 or more", s)
		}
	}
	validator := os.Getenv("KUBECTL_VALIDATE")
	if validator == "" {
		b.Fatal("KUBECTL_VALIDATE is not set: give the kubectl-validate binary (make bench-anchors installs it)")
	}
	ctx := b.Context()
	dir := b.TempDir()
	a := &anchors{dir: dir, build: filepath.Join(dir, "build.yaml"), policy: filepath.Join(dir, "policy.yaml")}
	writeAnchorFile(b, a.build, benchinput.Build(n))
	writeAnchorFile(b, a.policy, []byte(benchinput.Policy))
	a.load(b)
	a.createState(b, ctx)
	for _, hooks := range []string{"none", "one"} {
		b.Run("webhook="+hooks, func(b *testing.B) {
			args := []string{"--webhooks", a.policy}
			if hooks == "one" {
				args = append(args, "--webhooks", a.installWebhook(b, ctx))
			}
			for b.Loop() {
				server := a.dryRun(b, ctx)
				review := a.review(b, args)
				if diffs := compareAnswers(server, review); len(diffs) > 0 {
					b.Errorf("%d of %d objects answered otherwise by admit review than by kube-apiserver; the first:\n%s",
						len(diffs), len(server.answers), strings.Join(diffs[:min(len(diffs), 5)], "\n"))
				}
				objects := float64(len(server.answers))
				b.ReportMetric(objects, "objects")
				b.ReportMetric(micros(server.apiserverCPU)/objects, "apiserver-cpu-µs/object")
				b.ReportMetric(micros(server.idleCPU)/objects, "apiserver-idle-cpu-µs/object")
				b.ReportMetric(micros(server.etcdCPU)/objects, "etcd-cpu-µs/object")
				// admit review reviews the build's state objects too: its CPU is per object of the
				// whole build.
				b.ReportMetric(micros(review.cpu)/float64(n), "review-cpu-µs/object")
				b.ReportMetric((micros(review.cpu)/float64(n))/(micros(server.apiserverCPU)/objects), "review/apiserver")
				if hooks == "none" {
					cpu, generated := a.validate(b, validator)
					b.ReportMetric(micros(cpu)/float64(n), "kubectl-validate-cpu-µs/object")
					b.ReportMetric(float64(generated), "kubectl-validate-generateName-refused")
				}
				b.ReportMetric(loadAverage1(), "load1")
			}
		})
	}
}

func micros(d time.Duration) float64 { return float64(d.Microseconds()) }

// anchors is the benchmark's build: its files, its state and its objects.
type anchors struct {
	dir, build, policy string
	state, objects     []*unstructured.Unstructured
	mapper             meta.RESTMapper
	client             dynamic.Interface
}

func writeAnchorFile(b *testing.B, path string, data []byte) {
	b.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
}

// load parses the build: the CRD, Namespaces and LimitRanges are state, the rest objects.
func (a *anchors) load(b *testing.B) {
	b.Helper()
	data, err := os.ReadFile(a.build)
	if err != nil {
		b.Fatal(err)
	}
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
			b.Fatalf("document %d of the build: %v", i, err)
		}
		switch obj.GetKind() {
		case "CustomResourceDefinition", "Namespace", "LimitRange":
			a.state = append(a.state, obj)
		default:
			a.objects = append(a.objects, obj)
		}
	}
}

// createState creates the build's state for real, each namespace's default ServiceAccount, and
// the policy, and waits until the apiserver serves the CRD and enforces the policy.
func (a *anchors) createState(b *testing.B, ctx context.Context) {
	b.Helper()
	cfg := rest.CopyConfig(env.RESTConfig)
	// The harness's client must not throttle: the apiserver's CPU per object is measured.
	cfg.QPS, cfg.RateLimiter = -1, nil
	var err error
	if a.client, err = dynamic.NewForConfig(cfg); err != nil {
		b.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	cached := memory.NewMemCacheClient(disc)
	a.mapper = restmapper.NewDeferredDiscoveryRESTMapper(cached)
	policy, err := os.ReadFile(a.policy)
	if err != nil {
		b.Fatal(err)
	}
	state := a.state
	for _, doc := range bytes.Split(policy, []byte("\n---\n")) {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
			b.Fatal(err)
		}
		state = append(state, obj)
	}
	for _, obj := range state {
		if obj.GetKind() == "LimitRange" {
			// After the CRD and the Namespaces: wait until the CRD is served.
			a.waitForWidgets(b, ctx, cached)
		}
		if _, err := a.send(ctx, obj, false); err != nil && !apierrors.IsAlreadyExists(err) {
			b.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
		if obj.GetKind() == "Namespace" {
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: obj.GetName()}}
			if _, err := env.Client.CoreV1().ServiceAccounts(obj.GetName()).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				b.Fatal(err)
			}
		}
	}
	// The policy is enforced once its type check and informers are ready.
	probe := a.objects[0].DeepCopy()
	for _, obj := range a.objects {
		if obj.GetKind() == "ConfigMap" {
			probe = obj.DeepCopy()
			break
		}
	}
	unstructured.SetNestedField(probe.Object, "13", "data", "size")
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := a.send(ctx, probe, true)
		if err != nil && strings.Contains(err.Error(), "unlucky size") {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the policy did not take effect within 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitForWidgets waits until the apiserver serves the build's CRD.
func (a *anchors) waitForWidgets(b *testing.B, ctx context.Context, cached interface{ Invalidate() }) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		cached.Invalidate()
		a.mapper.(meta.ResettableRESTMapper).Reset()
		if _, err := a.mapper.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Widget"}); err == nil {
			return
		} else if time.Now().After(deadline) {
			b.Fatalf("the build's CRD is not served within 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// send creates obj, as a dry run or for real.
func (a *anchors) send(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	gvk := obj.GroupVersionKind()
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	opts := metav1.CreateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var r dynamic.ResourceInterface = a.client.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		r = a.client.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	}
	return r.Create(ctx, obj, opts)
}

// installWebhook serves the mutating webhook, registers it with the apiserver, waits until it
// takes effect, and returns its configuration's file for admit review.
func (a *anchors) installWebhook(b *testing.B, ctx context.Context) string {
	b.Helper()
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := benchinput.RegisterLabeller(registry, anchorLabel); err != nil {
		b.Fatal(err)
	}
	url, caPEM := serveLatencyWebhooks(b, registry)
	mutating, _, err := registry.Configurations(webhook.ConfigOptions{Name: "admit-anchors", ClientConfig: webhook.ClientConfig{URL: url, CABundle: caPEM}})
	if err != nil {
		b.Fatal(err)
	}
	// Only the build's namespaces: the rest of the suite's objects are not the benchmark's.
	for i := range mutating.Webhooks {
		mutating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: a.namespaces()}}}
	}
	api := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := api.Create(ctx, mutating, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = api.Delete(context.Background(), mutating.Name, metav1.DeleteOptions{}) })
	mutating.TypeMeta = metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"}
	data, err := yaml.Marshal(mutating)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(a.dir, "webhook.yaml")
	writeAnchorFile(b, path, data)
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := a.send(ctx, a.objects[0], true)
		if err == nil && got.GetLabels()[anchorLabel] == "true" {
			return path
		}
		if time.Now().After(deadline) {
			b.Fatalf("the webhook did not take effect within 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// namespaces are the build's namespaces.
func (a *anchors) namespaces() []string {
	var out []string
	for _, obj := range a.state {
		if obj.GetKind() == "Namespace" {
			out = append(out, obj.GetName())
		}
	}
	return out
}

// answer is how one object was admitted: refused with a message, or admitted, labelled by the
// webhook or not.
type answer struct {
	allowed  bool
	message  string
	labelled bool
}

// serverRun is the apiserver's answers and the CPU they took.
type serverRun struct {
	answers                        []answer
	apiserverCPU, etcdCPU, idleCPU time.Duration
}

// dryRun sends every object as a dry-run create, eight at a time, after a warm-up, and reads
// the apiserver's and etcd's CPU around it; then as long idle, for the apiserver's background.
func (a *anchors) dryRun(b *testing.B, ctx context.Context) serverRun {
	b.Helper()
	run := serverRun{answers: make([]answer, len(a.objects))}
	each := func(objects []*unstructured.Unstructured, answers []answer) {
		var wg sync.WaitGroup
		next := make(chan int)
		for range 8 {
			wg.Go(func() {
				for i := range next {
					got, err := a.send(ctx, objects[i], true)
					if answers == nil {
						continue
					}
					if err != nil {
						answers[i] = answer{message: err.Error()}
						continue
					}
					answers[i] = answer{allowed: true, labelled: got.GetLabels()[anchorLabel] == "true"}
				}
			})
		}
		for i := range objects {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	each(a.objects[:min(200, len(a.objects))], nil)
	apiserver0, etcd0, err := env.CPU()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	each(a.objects, run.answers)
	took := time.Since(start)
	apiserver1, etcd1, err := env.CPU()
	if err != nil {
		b.Fatal(err)
	}
	run.apiserverCPU, run.etcdCPU = apiserver1-apiserver0, etcd1-etcd0
	time.Sleep(took)
	apiserver2, _, err := env.CPU()
	if err != nil {
		b.Fatal(err)
	}
	run.idleCPU = apiserver2 - apiserver1
	return run
}

// reviewRun is admit review's answers and the CPU its timed run took.
type reviewRun struct {
	answers []answer
	cpu     time.Duration
}

// review runs admit review --summary on the build, timed, then -o json for its answers.
func (a *anchors) review(b *testing.B, args []string) reviewRun {
	b.Helper()
	timed := exec.Command(admitBinary(b), append([]string{"review", "-f", a.build, "--summary", "--color", "never"}, args...)...)
	var stderr bytes.Buffer
	timed.Stdout, timed.Stderr = nil, &stderr
	if err := timed.Run(); err != nil && timed.ProcessState.ExitCode() != 1 {
		b.Fatalf("admit review --summary: %v\n%s", err, stderr.String())
	}
	run := reviewRun{cpu: timed.ProcessState.UserTime() + timed.ProcessState.SystemTime()}
	out := exec.Command(admitBinary(b), append([]string{"review", "-f", a.build, "-o", "json"}, args...)...)
	stdout, err := out.Output()
	if err != nil && out.ProcessState.ExitCode() != 1 {
		b.Fatalf("admit review -o json: %v", err)
	}
	var list struct {
		Items []struct {
			Kind    string
			Allowed bool
			Status  *metav1.Status
			Object  *unstructured.Unstructured
		}
	}
	if err := json.Unmarshal(stdout, &list); err != nil {
		b.Fatalf("admit review -o json: %v", err)
	}
	for _, item := range list.Items {
		switch item.Kind {
		case "CustomResourceDefinition", "Namespace", "LimitRange":
			continue
		}
		ans := answer{allowed: item.Allowed}
		if item.Status != nil && !item.Allowed {
			ans.message = item.Status.Message
		}
		if item.Object != nil && item.Allowed {
			ans.labelled = item.Object.GetLabels()[anchorLabel] == "true"
		}
		run.answers = append(run.answers, ans)
	}
	return run
}

// validate runs kubectl-validate on the build, the CRD given as a local one, and returns its CPU
// and how many objects it refused for their generateName: it validates an object as stored,
// and refuses one whose name the apiserver would generate. Any other refusal fails the
// benchmark (the build is valid).
func (a *anchors) validate(b *testing.B, binary string) (cpu time.Duration, generated int) {
	b.Helper()
	crds := filepath.Join(a.dir, "crds")
	if err := os.MkdirAll(crds, 0o700); err != nil {
		b.Fatal(err)
	}
	data, err := yaml.Marshal(a.state[0].Object)
	if err != nil {
		b.Fatal(err)
	}
	writeAnchorFile(b, filepath.Join(crds, "widgets.yaml"), data)
	cmd := exec.Command(binary, "--local-crds", crds, a.build)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	generated = strings.Count(out.String(), "metadata.name was not generated")
	if err != nil && (cmd.ProcessState.ExitCode() != 1 || strings.Count(out.String(), "Internal error occurred") != generated) {
		tail := out.String()
		b.Fatalf("kubectl-validate: %v\n%s", err, tail[max(0, len(tail)-2000):])
	}
	return cpu, generated
}

// generatedName is a name the apiserver generated (generateName's prefix and five characters):
// the apiserver and admit review generate different ones.
var generatedName = regexp.MustCompile(`"settings-[a-z0-9]{5}"`)

// compareAnswers lists the objects the two runs answered otherwise.
func compareAnswers(server serverRun, review reviewRun) []string {
	if len(server.answers) != len(review.answers) {
		return []string{fmt.Sprintf("kube-apiserver answered %d objects, admit review %d", len(server.answers), len(review.answers))}
	}
	var diffs []string
	for i, s := range server.answers {
		r := review.answers[i]
		s.message, r.message = generatedName.ReplaceAllString(s.message, `"settings-*"`), generatedName.ReplaceAllString(r.message, `"settings-*"`)
		if s != r {
			diffs = append(diffs, fmt.Sprintf("object %d: kube-apiserver %+v, admit review %+v", i, s, r))
		}
	}
	return diffs
}

// loadAverage1 is the one-minute load average, to say what else the machine was doing.
func loadAverage1() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(data), " ")
	load, _ := strconv.ParseFloat(first, 64)
	return load
}
