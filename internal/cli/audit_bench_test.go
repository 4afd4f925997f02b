package cli

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admitkit/admit/internal/benchinput"
)

// clusterDump writes n objects as `kubectl get -A -o yaml` prints a cluster's: one List whose
// items are stored objects — uid, resourceVersion, creationTimestamp, managedFields, status —
// spread over 20 namespaces (and their Namespace objects first): per service a ServiceAccount,
// a ConfigMap, a Service, a Deployment, a ReplicaSet-less Pod and a Job. Every second Deployment
// runs more than five replicas, every third image comes from quay.io.
func clusterDump(w io.Writer, n int) {
	b := bufio.NewWriter(w)
	defer b.Flush()
	b.WriteString("apiVersion: v1\nitems:\n")
	const namespaces = 20
	for i := 0; i < namespaces; i++ {
		fmt.Fprintf(b, "- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: team-%02d\n    labels:\n      kubernetes.io/metadata.name: team-%02d\n      tier: team\n    resourceVersion: \"%d\"\n    uid: 00000000-0000-4000-8000-%012d\n  spec:\n    finalizers: [kubernetes]\n  status:\n    phase: Active\n", i, i, 100+i, i)
	}
	for i := 0; i < n-namespaces; i++ {
		ns := fmt.Sprintf("team-%02d", i%namespaces)
		name := fmt.Sprintf("svc-%05d", i/6)
		image := fmt.Sprintf("nginx:1.%d", 20+i%7)
		if i%3 == 0 {
			image = "quay.io/prometheus/node-exporter:v1.8.2"
		}
		meta := fmt.Sprintf("  metadata:\n    name: %s\n    namespace: %s\n    labels: {app: %s}\n    resourceVersion: \"%d\"\n    uid: 10000000-0000-4000-8000-%012d\n    creationTimestamp: \"2026-01-02T03:04:05Z\"\n    managedFields:\n    - {manager: kubectl, operation: Update, apiVersion: v1, time: \"2026-01-02T03:04:05Z\", fieldsType: FieldsV1, fieldsV1: {f:metadata: {f:labels: {.: {}, f:app: {}}}}}\n", name, ns, name, 1000+i, i)
		switch i % 6 {
		case 0:
			fmt.Fprintf(b, "- apiVersion: v1\n  kind: ServiceAccount\n%s", meta)
		case 1:
			fmt.Fprintf(b, "- apiVersion: v1\n  kind: ConfigMap\n%s  data:\n    LOG_LEVEL: info\n    PORT: \"8080\"\n", meta)
		case 2:
			fmt.Fprintf(b, "- apiVersion: v1\n  kind: Service\n%s  spec:\n    selector: {app: %s}\n    ports:\n    - {port: 80, targetPort: 8080, protocol: TCP}\n    type: ClusterIP\n  status:\n    loadBalancer: {}\n", meta, name)
		case 3:
			replicas := 2
			if i%4 == 3 {
				replicas = 8
			}
			fmt.Fprintf(b, "- apiVersion: apps/v1\n  kind: Deployment\n%s    generation: 1\n  spec:\n    replicas: %d\n    selector:\n      matchLabels: {app: %s}\n    template:\n      metadata:\n        labels: {app: %s}\n      spec:\n        containers:\n        - name: app\n          image: %s\n          ports:\n          - {containerPort: 8080, protocol: TCP}\n          resources:\n            requests: {cpu: 100m, memory: 128Mi}\n  status:\n    replicas: %d\n    readyReplicas: %d\n", meta, replicas, name, name, image, replicas, replicas)
		case 4:
			fmt.Fprintf(b, "- apiVersion: batch/v1\n  kind: Job\n%s  spec:\n    template:\n      metadata:\n        labels: {app: %s, batch.kubernetes.io/job-name: %s, job-name: %s}\n      spec:\n        restartPolicy: Never\n        containers:\n        - name: migrate\n          image: %s\n    selector:\n      matchLabels: {batch.kubernetes.io/controller-uid: 10000000-0000-4000-8000-%012d}\n  status:\n    succeeded: 1\n", meta, name, name, name, image, i)
		case 5:
			fmt.Fprintf(b, "- apiVersion: v1\n  kind: Pod\n%s  spec:\n    containers:\n    - name: debug\n      image: %s\n    nodeName: node-1\n    serviceAccountName: default\n  status:\n    phase: Running\n", meta, image)
		}
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
}

// auditProposal writes the proposal the benchmark audits with (benchinput.WriteAuditProposal),
// its webhook served until the benchmark ends, and returns its path.
func auditProposal(tb testing.TB, dir string) string {
	tb.Helper()
	url, caBundle, stop := benchinput.WarningWebhook("pods will need a team label")
	tb.Cleanup(stop)
	path, err := benchinput.WriteAuditProposal(dir, url, caBundle)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkAudit100k audits a dump of 100,000 objects of 20 namespaces with a proposed policy
// on Deployments and a proposed webhook on Pods, as `admit audit -f dump.yaml --webhooks
// proposal.yaml` does, and reports objects per second, CPU, peak RSS, the size audited and the
// load the machine was under; `make bench-audit` keeps its output for docs/benchmarks.md.
// ADMIT_AUDIT_OBJECTS sets another size.
func BenchmarkAudit100k(b *testing.B) {
	load := loadAverage()
	n := 100000
	if s := os.Getenv("ADMIT_AUDIT_OBJECTS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	dump := filepath.Join(dir, "dump.yaml")
	f, err := os.Create(dump)
	if err != nil {
		b.Fatal(err)
	}
	clusterDump(f, n)
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	proposal := auditProposal(b, dir)
	var elapsed time.Duration
	cpuStart := cpuTime()
	for b.Loop() {
		start := time.Now()
		var out strings.Builder
		code := Run(context.Background(), []string{"audit", "-f", dump, "--webhooks", proposal, "-o", "json", "--max-new-denials", "-1"},
			Streams{In: strings.NewReader(""), Out: &out, Err: io.Discard})
		elapsed += time.Since(start)
		if code != ExitOK {
			b.Fatalf("exit %d:\n%.3000s", code, out.String())
		}
	}
	b.ReportMetric(float64(n), "objects")
	b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "objects/s")
	// The CPU the run took, which the machine's other work does not change as it does the wall
	// time: on two idle cores the run takes about half of it.
	b.ReportMetric((cpuTime()-cpuStart).Seconds()/float64(b.N), "cpu-s/op")
	// The process's peak resident memory: the dump is written a line at a time, so this is the
	// audit's (and the test binary's).
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			var kb float64
			if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
				b.ReportMetric(kb/1024, "peak-RSS-MiB")
			}
		}
	}
	b.ReportMetric(load, "load1")
}

// loadAverage is the one-minute load average when the benchmark started, to say what else the
// machine was doing; 0 where /proc/loadavg does not exist.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var load float64
	if _, err := fmt.Sscan(string(data), &load); err != nil {
		return 0
	}
	return load
}

func b64(data []byte) string { return base64.StdEncoding.EncodeToString(data) }
