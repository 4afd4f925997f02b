package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	admissionv1 "k8s.io/api/admission/v1"
)

// mirrorRegistry is where admit serve's image-mirrors webhook sends docker.io images in these tests.
const mirrorRegistry = "mirror.local/hub"

// mirroredPodPath is the image-mirrors webhook for Pods, as admit serve registers it.
const mirroredPodPath = "/image-mirrors/mutate-core-v1-pod"

// podReview is an admission.k8s.io/v1 review creating a Pod with one container running image.
func podReview(uid, image string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":%q,`+
		`"kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},`+
		`"operation":"CREATE","namespace":"reliability","name":"p",`+
		`"userInfo":{"username":"tester"},`+
		`"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"reliability"},`+
		`"spec":{"containers":[{"name":"app","image":%q}]}}}}`, uid, image))
}

// wantMirrorPatch is the patch image-mirrors answers for podReview(_, "nginx").
const wantMirrorPatch = `[{"op":"replace","path":"/spec/containers/0/image","value":"` + mirrorRegistry + `/library/nginx"}]`

// checkMirrored checks an answer to podReview(uid, "nginx"): 200, the request's uid, allowed,
// and the patch rewriting the image to the mirror.
func checkMirrored(uid string, resp *http.Response, body []byte) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d, want 200: %s", resp.StatusCode, body)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		return fmt.Errorf("decoding the answer: %w", err)
	}
	r := review.Response
	switch {
	case r == nil:
		return fmt.Errorf("answer without a response: %s", body)
	case string(r.UID) != uid:
		return fmt.Errorf("answer for uid %q, want %q", r.UID, uid)
	case !r.Allowed:
		return fmt.Errorf("not allowed: %s", body)
	case string(r.Patch) != wantMirrorPatch:
		return fmt.Errorf("patch %s, want %s", r.Patch, wantMirrorPatch)
	}
	return nil
}

// postReview builds the request of a review to url.
func postReview(url string, body []byte) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// waitFor calls check until it returns nil, at most for limit; the test fails after that.
func waitFor(t *testing.T, limit time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: still failing after %s: %v", what, limit, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sampleValue returns the value of the Prometheus sample whose line starts with prefix (a metric
// name, with its labels when it has some), or 0 when there is none.
func sampleValue(exposition, prefix string) float64 {
	scanner := bufio.NewScanner(strings.NewReader(exposition))
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if rest, ok := strings.CutPrefix(line, prefix+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err == nil {
				return v
			}
		}
	}
	return 0
}

// peakRSSOf reads VmHWM, the peak resident set size, from a /proc/<pid>/status file, in bytes.
func peakRSSOf(t *testing.T, statusFile string) int64 {
	t.Helper()
	data, err := os.ReadFile(statusFile)
	if err != nil {
		t.Fatalf("reading peak memory: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("%s: VmHWM %q: %v", statusFile, rest, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("%s has no VmHWM line", statusFile)
	return 0
}

// mib formats a byte count for logs and reports.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// checkGoroutineLeaks fails t if goroutines started during the test still run once its other
// clean-ups are done (it must be called first, so its clean-up runs last). Connections closing
// and timers firing take a moment, so it waits up to 10 s for them to end. Tests that call it
// must not run in parallel: it sees every goroutine of the process.
func checkGoroutineLeaks(t *testing.T) {
	t.Helper()
	before := goroutines()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			var leaked []string
			for id, stack := range goroutines() {
				if _, old := before[id]; !old {
					leaked = append(leaked, stack)
				}
			}
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines started by the test still run 10s after it ended:\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

var goroutineHeader = regexp.MustCompile(`^goroutine (\d+) `)

// goroutines returns the stack of every goroutine by id.
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, stack := range strings.Split(string(buf), "\n\n") {
		if m := goroutineHeader.FindStringSubmatch(stack); m != nil {
			out[m[1]] = stack
		}
	}
	return out
}

// counterValue sums the samples of a counter (over all its labels) gathered from a registry.
func counterValue(families []*dto.MetricFamily, name string) float64 {
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}
