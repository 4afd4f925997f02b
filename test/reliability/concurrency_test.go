package reliability

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/webhooktest"
)

// concurrentAdmissionsMatchSerial sends 1,000 different admissions through one
// dispatcher one after the other, then all at once (run it with -race, as make test does).
// Promise: every concurrent result is identical to its serial one — object, patch, warnings,
// annotations, status and every webhook's outcome — and each webhook is called as often; no
// goroutine outlives the test.
func concurrentAdmissionsMatchSerial(t *testing.T, m *measurements) {
	p := currentProfile()
	server := webhooktest.Start(t)
	selected := func(w admissionregistrationv1.ValidatingWebhook, label string) admissionregistrationv1.ValidatingWebhook {
		w.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{label: "yes"}}
		return w
	}
	to := func(name, path string, policy admissionregistrationv1.FailurePolicyType) admissionregistrationv1.ValidatingWebhook {
		cc := server.ClientConfig(path)
		// The longest timeout a configuration may have: the promise is about results, and a shared
		// machine running the race detector answers a thousand calls at once slowly.
		return webhookTo(name+".concurrency.admit.dev", *cc.URL, cc.CABundle, policy, 30)
	}
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	paths := []string{
		webhooktest.SetLabel("team", "payments"),
		webhooktest.SetLabel("tier", "web", webhooktest.Warning("tier defaulted")),
		webhooktest.PathInternalError,
		webhooktest.Deny(webhooktest.Message("deny=yes is not welcome")),
		webhooktest.Allow(webhooktest.AuditAnnotation("checked", "yes"), webhooktest.Warning("checked by the auditor")),
		webhooktest.RemoveLabel("temporary"),
	}
	d := newDispatcher(t, nil,
		[]admissionregistrationv1.ValidatingWebhook{
			to("team", paths[0], fail),
			selected(to("tier", paths[1], fail), "web"),
			selected(to("flaky", paths[2], ignore), "flaky"),
		},
		[]admissionregistrationv1.ValidatingWebhook{
			selected(to("deny", paths[3], fail), "deny"),
			selected(to("audit", paths[4], fail), "audit"),
			selected(to("broken", paths[5], fail), "broken"),
		})
	requests := make([]*engine.Request, p.concurrentAdmissions)
	for i := range requests {
		requests[i] = variedPod(i)
	}

	serialStart := time.Now()
	serial := make([]*engine.Result, len(requests))
	for i, req := range requests {
		serial[i] = admitWithin(t, d, context.Background(), req, 30*time.Second)
	}
	serialTook := time.Since(serialStart)
	serialCalls := callCounts(server, paths)
	server.Reset()

	concurrent := make([]*engine.Result, len(requests))
	errs := make([]error, len(requests))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, req := range requests {
		wg.Go(func() {
			<-start
			concurrent[i], errs[i] = d.Admit(context.Background(), req)
		})
	}
	concurrentStart := time.Now()
	close(start)
	wg.Wait()
	m.Logf("%d admissions: %s one after the other, %s all at once", len(requests), serialTook.Round(time.Millisecond), time.Since(concurrentStart).Round(time.Millisecond))

	ignoreTimes := cmpopts.IgnoreFields(engine.Row{}, "Duration", "DurationSeconds")
	differing := 0
	for i := range requests {
		if errs[i] != nil {
			t.Fatalf("admission %d: %v", i, errs[i])
		}
		if diff := cmp.Diff(serial[i], concurrent[i], ignoreTimes, cmpopts.IgnoreUnexported(engine.Row{})); diff != "" {
			if differing++; differing <= 3 {
				t.Errorf("admission %d differs when concurrent (-serial +concurrent):\n%s", i, diff)
			}
		}
	}
	if differing > 0 {
		t.Errorf("%d of %d concurrent admissions differ from the serial run", differing, len(requests))
	}
	if diff := cmp.Diff(serialCalls, callCounts(server, paths)); diff != "" {
		t.Errorf("calls per webhook (-serial +concurrent):\n%s", diff)
	}
	outcomes := map[string]int{}
	for _, r := range serial {
		outcomes[fmt.Sprint("allowed=", r.Allowed)]++
		for _, w := range r.Rows {
			outcomes[string(w.Outcome)]++
		}
	}
	m.Logf("%d admissions: %d allowed, %d rejected; webhook outcomes: %d patched, %d denied, %d error, %d failed-open, %d skipped, %d allowed",
		len(requests), outcomes["allowed=true"], outcomes["allowed=false"], outcomes["patched"], outcomes["denied"], outcomes["error"],
		outcomes["failed-open"], outcomes["skipped"], outcomes["allowed"])
	for _, o := range []string{"allowed=true", "allowed=false", "patched", "denied", "error", "failed-open", "skipped"} {
		if outcomes[o] == 0 {
			t.Errorf("no %s outcome among the admissions: the mix must exercise every path", o)
		}
	}
}

// variedPod is admission i of a mix: labels choose which webhooks see it and how they answer.
func variedPod(i int) *engine.Request {
	labels := map[string]string{"app": "web"}
	for label, every := range map[string]int{"web": 2, "audit": 2, "flaky": 3, "deny": 7, "broken": 11, "temporary": 5} {
		if i%every == 0 {
			labels[label] = "yes"
		}
	}
	var pairs []string
	for k, v := range labels {
		pairs = append(pairs, fmt.Sprintf("%q:%q", k, v))
	}
	req := podCreate(fmt.Sprintf("pod-%d", i))
	req.Object = []byte(strings.Replace(string(req.Object), `"labels":{"app":"web"}`, `"labels":{`+strings.Join(pairs, ",")+`}`, 1))
	return req
}

// callCounts is how many reviews each path received.
func callCounts(server *webhooktest.Server, paths []string) map[string]int {
	out := map[string]int{}
	for _, p := range paths {
		out[p] = server.Calls(p)
	}
	return out
}
