package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// memoryCommands are the commands BenchmarkCommandMemory runs, by the name of their
// sub-benchmark: each the arguments after the generated input's path, and what its output says
// of n objects, to check the run did its work.
var memoryCommands = []struct {
	name string
	args func(input, dir string, n int) []string
	want func(n int) string
}{
	{"review-text", func(in, _ string, _ int) []string { return []string{"review", "-f", in, "--color", "never"} }, reviewedLine},
	{"review-summary", func(in, _ string, _ int) []string {
		return []string{"review", "-f", in, "--summary", "--color", "never"}
	}, reviewedLine},
	{"review-json", func(in, _ string, _ int) []string { return []string{"review", "-f", in, "-o", "json"} }, func(int) string { return "\n  ]\n}\n" }},
	{"review-yaml", func(in, _ string, _ int) []string { return []string{"review", "-f", in, "-o", "yaml"} }, func(int) string { return "kind: List" }},
	{"lint", func(in, dir string, _ int) []string { return []string{"lint", in, lintedWebhook(dir)} }, func(int) string { return "" }},
	{"test", func(_, dir string, n int) []string { return []string{"test", testSuiteOf(dir, n)} }, func(n int) string { return fmt.Sprintf("%d passed", n) }},
}

// reviewedLine is the start of the totals of n reviews. Whether each is admitted is not the
// benchmark's business (a loaded machine may see a built-in webhook's two-second timeout).
func reviewedLine(n int) string { return fmt.Sprintf("%d objects: ", n) }

// BenchmarkCommandMemory runs one command of admit on n generated objects — review in each
// output format on a kustomize-shaped build, lint on the same build with a webhook
// configuration, test on a suite of n cases — and reports its peak resident memory, CPU and
// objects per second: `make bench-memory` runs each command and size in a process of its own,
// so that the peak is the command's, and keeps the output for docs/benchmarks.md.
// ADMIT_MEMORY_OBJECTS sets n (default 1,000).
func BenchmarkCommandMemory(b *testing.B) {
	n := 1000
	if s := os.Getenv("ADMIT_MEMORY_OBJECTS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range memoryCommands {
		b.Run(c.name, func(b *testing.B) {
			load := loadAverage()
			dir := b.TempDir()
			input := filepath.Join(dir, "build.yaml")
			if c.name != "test" {
				writeLines(b, input, func(w io.Writer) { writeKustomizeBuild(w, n) })
			}
			args := c.args(input, dir, n)
			var elapsed time.Duration
			cpuStart := cpuTime()
			for b.Loop() {
				out, errOut := &tailWriter{}, &tailWriter{}
				start := time.Now()
				code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: out, Err: errOut})
				elapsed += time.Since(start)
				if code != ExitOK && code != ExitRejected {
					b.Fatalf("%s: exit %d:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.tail, errOut.tail)
				}
				if want := c.want(n); !strings.Contains(out.tail, want) {
					b.Fatalf("%s: exit %d, the output ends without %q:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out.tail, errOut.tail)
				}
			}
			b.ReportMetric(float64(n), "objects")
			b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "objects/s")
			b.ReportMetric((cpuTime()-cpuStart).Seconds()/float64(b.N), "cpu-s/op")
			reportPeakRSS(b)
			b.ReportMetric(load, "load1")
		})
	}
}

// tailWriter keeps the last few KiB written to it: enough to check how an output ends, without
// holding the output (which would be the benchmark's memory, not the command's).
type tailWriter struct{ tail string }

func (w *tailWriter) Write(p []byte) (int, error) {
	const keep = 8 << 10
	w.tail += string(p[max(0, len(p)-keep):])
	if len(w.tail) > keep {
		w.tail = w.tail[len(w.tail)-keep:]
	}
	return len(p), nil
}

// reportPeakRSS reports the process's peak resident memory in MiB (VmHWM), where /proc says it.
func reportPeakRSS(b *testing.B) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(status), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
			b.ReportMetric(kb/1024, "peak-RSS-MiB")
		}
	}
}

// writeLines writes a file with write, a line at a time.
func writeLines(tb testing.TB, path string, write func(io.Writer)) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	write(w)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// lintedWebhook writes a validating webhook configuration on the build's Deployments, calling a
// Service of the build, and returns its path.
func lintedWebhook(dir string) string {
	path := filepath.Join(dir, "webhook.yaml")
	config := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deployments}
webhooks:
- name: deployments.example.com
  clientConfig:
    service: {namespace: shop, name: svc-000-2, path: /validate}
  rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  failurePolicy: Fail
  sideEffects: None
  timeoutSeconds: 5
  admissionReviewVersions: [v1]
`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		panic(err)
	}
	return path
}

// testSuiteOf writes a suite of n cases — ConfigMaps a ValidatingAdmissionPolicy admits when
// they have a team label — and returns its path.
func testSuiteOf(dir string, n int) string {
	policy := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: "a ConfigMap needs a team label"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label}
spec: {policyName: team-label, validationActions: [Deny]}
`
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(policy), 0o600); err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "admit-test.yaml")
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	fmt.Fprintf(w, "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\nname: %d ConfigMaps\nwebhooks: [policy.yaml]\ncases:\n", n)
	for i := range n {
		fmt.Fprintf(w, "- name: configmap %d is admitted\n  object:\n    apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: cm-%d, namespace: ns-%d, labels: {team: t%d}}\n    data: {key: value-%d}\n  expect:\n    allowed: true\n    outcomes: {team-label: allowed}\n", i, i, i%10, i%7, i)
	}
	return path
}
