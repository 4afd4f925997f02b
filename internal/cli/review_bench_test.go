package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

// kustomizeBuild is n objects shaped like the output of a kustomize build (writeKustomizeBuild).
func kustomizeBuild(n int) []byte {
	var b bytes.Buffer
	writeKustomizeBuild(&b, n)
	return b.Bytes()
}

// writeKustomizeBuild writes n objects shaped like the output of a kustomize build of a few
// services: per service a ServiceAccount, a ConfigMap, a Service and a Deployment, with Jobs and
// bare Pods among them, spread over five namespaces, as one multi-document YAML stream.
func writeKustomizeBuild(w io.Writer, n int) {
	b := bufio.NewWriter(w)
	defer b.Flush()
	namespaces := []string{"shop", "payments", "search", "ops", "web"}
	for i := 0; i < n; i++ {
		ns := namespaces[i%len(namespaces)]
		name := fmt.Sprintf("svc-%03d", i/6)
		image := fmt.Sprintf("nginx:1.%d", 20+i%7)
		if i%3 == 0 {
			image = "quay.io/prometheus/node-exporter:v1.8.2"
		}
		b.WriteString("---\n")
		switch i % 6 {
		case 0:
			fmt.Fprintf(b, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s-%d, namespace: %s}\n", name, i, ns)
		case 1:
			fmt.Fprintf(b, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s-%d, namespace: %s, labels: {app: %s, team: storefront}}\ndata: {LOG_LEVEL: info, PORT: \"8080\"}\n", name, i, ns, name)
		case 2:
			fmt.Fprintf(b, "apiVersion: v1\nkind: Service\nmetadata: {name: %s-%d, namespace: %s}\nspec:\n  selector: {app: %s}\n  ports: [{port: 80, targetPort: 8080}]\n", name, i, ns, name)
		case 3:
			fmt.Fprintf(b, `apiVersion: apps/v1
kind: Deployment
metadata: {name: %s-%d, namespace: %s, labels: {app: %s, team: storefront}}
spec:
  replicas: 3
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s}}
    spec:
      containers:
      - name: app
        image: %s
        ports: [{containerPort: 8080}]
        resources: {requests: {cpu: 100m, memory: 128Mi}}
`, name, i, ns, name, name, name, image)
		case 4:
			fmt.Fprintf(b, "apiVersion: batch/v1\nkind: Job\nmetadata: {name: %s-%d, namespace: %s}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: migrate, image: %s}]\n", name, i, ns, image)
		case 5:
			fmt.Fprintf(b, "apiVersion: v1\nkind: Pod\nmetadata: {name: %s-%d, namespace: %s}\nspec:\n  containers: [{name: debug, image: %s}]\n", name, i, ns, image)
		}
	}
}

// reviewStream reviews a YAML stream with the built-in webhooks, as `kustomize build | admit
// review -f -` does, and returns the output and exit code.
func reviewStream(tb testing.TB, stream []byte, output string) (string, int) {
	tb.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"review", "-f", "-", "-o", output, "--color", "never"}, Streams{In: bytes.NewReader(stream), Out: &out, Err: &errOut})
	if code != ExitOK && code != ExitRejected {
		tb.Fatalf("admit review: exit %d: %s", code, errOut.String())
	}
	return out.String(), code
}

// reviewNoise matches what varies from run to run by design: durations, timestamps, generated
// uids, allocated cluster IPs, the random suffix of the service account token volume.
var reviewNoise = regexp.MustCompile(`kube-api-access-[a-z0-9]{5}|"durationSeconds": [0-9.e-]+|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|10\.\d+\.\d+\.\d+`)

// A whole build is reviewed, every object in its own admission, and the output is the same from
// run to run although the objects are reviewed concurrently.
func TestReviewKustomizeBuildIsDeterministic(t *testing.T) {
	stream := kustomizeBuild(120)
	first, code := reviewStream(t, stream, "json")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	second, _ := reviewStream(t, stream, "json")
	if reviewNoise.ReplaceAllString(first, "") != reviewNoise.ReplaceAllString(second, "") {
		t.Error("two reviews of the same build differ beyond durations and generated identifiers")
	}
	if got := strings.Count(first, `"source": "<stdin>:`); got != 120 {
		t.Errorf("%d objects in the output, want 120", got)
	}
}

// BenchmarkReviewKustomizeBuild reviews 1,000 objects of a kustomize-shaped build through the
// whole chain and the built-in webhooks (served in-process over TLS), as CI would run
// `kustomize build | admit review -f -`, and reports objects per second. One iteration is one
// run of the command: reading, the chain built once, every object admitted, the output written.
func BenchmarkReviewKustomizeBuild(b *testing.B) {
	stream := kustomizeBuild(1000)
	var objects int
	var elapsed time.Duration
	for b.Loop() {
		start := time.Now()
		out, code := reviewStream(b, stream, "text")
		elapsed += time.Since(start)
		if code != ExitOK || !strings.Contains(out, "1000 objects: 1000 admitted") {
			b.Fatalf("exit %d; the summary lacks 1000 admitted objects:\n%.2000s", code, out[max(0, len(out)-2000):])
		}
		objects += 1000
	}
	b.ReportMetric(float64(objects)/elapsed.Seconds(), "objects/s")
}
