package dispatchers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/bench/dispatchers"
	"github.com/admitkit/admit/bench/servers"
	"github.com/admitkit/admit/webhook"
)

// webhooksOnLoopback serves admit's benchmark webhooks for the test and describes them.
func webhooksOnLoopback(t *testing.T) (dispatchers.Webhooks, []byte) {
	t.Helper()
	dir := t.TempDir()
	caPEM, err := servers.WriteTLS(dir)
	if err != nil {
		t.Fatal(err)
	}
	running, err := servers.Start(context.Background(), servers.Admit, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The dispatchers' HTTP clients may pool a connection they dialled for a parallel call
		// and never used; net/http waits 5 s before closing such a connection on shutdown, longer
		// than the server's grace period here. That is no failure of the dispatchers.
		if err := running.Stop(); err != nil {
			t.Logf("stopping the webhook server: %v", err)
		}
	})
	registry, err := servers.AdmitRegistry(webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := dispatchers.NewWebhooks(registry, running.URL, caPEM)
	if err != nil {
		t.Fatal(err)
	}
	return hooks, caPEM
}

// TestDispatchersAdmitTheSamePod is what makes the dispatcher comparison fair: both dispatchers
// call the three webhooks and admit the Pod bench.Inject makes.
func TestDispatchersAdmitTheSamePod(t *testing.T) {
	hooks, caPEM := webhooksOnLoopback(t)
	if got := len(hooks.Mutating.Webhooks) + len(hooks.Validating.Webhooks); got != 3 {
		t.Fatalf("%d webhooks configured, want 1 mutating and 2 validating", got)
	}
	pod, err := bench.Pod()
	if err != nil {
		t.Fatal(err)
	}
	podJSON, err := bench.PodJSON()
	if err != nil {
		t.Fatal(err)
	}
	admit, err := dispatchers.NewAdmit(hooks, podJSON)
	if err != nil {
		t.Fatal(err)
	}
	apiserver, err := dispatchers.NewAPIServer(hooks, pod, caPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		d    dispatchers.Dispatcher
	}{
		{"admit", admit},
		{"apiserver", apiserver},
		{"input-copy", dispatchers.InputCopy{Pod: pod}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.d.Close()
			for range 2 {
				if err := tc.d.Check(context.Background()); err != nil {
					t.Fatal(err)
				}
				if err := tc.d.Admit(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// Without the mutating webhook, the validating webhook that requires its label rejects the Pod,
// and both dispatchers report the rejection: a dispatcher that skipped a webhook cannot pass.
func TestDispatchersReportRejections(t *testing.T) {
	hooks, caPEM := webhooksOnLoopback(t)
	hooks.Mutating = hooks.Mutating.DeepCopy()
	hooks.Mutating.Webhooks[0].Rules[0].Resources = []string{"configmaps"}
	pod, err := bench.Pod()
	if err != nil {
		t.Fatal(err)
	}
	podJSON, err := bench.PodJSON()
	if err != nil {
		t.Fatal(err)
	}
	admit, err := dispatchers.NewAdmit(hooks, podJSON)
	if err != nil {
		t.Fatal(err)
	}
	defer admit.Close()
	if err := admit.Admit(context.Background()); err == nil || !strings.Contains(err.Error(), "the defaulter did not run") {
		t.Errorf("admit's dispatcher: got %v, want a rejection saying the defaulter did not run", err)
	}
	// NewAPIServer checks one admission before returning.
	if _, err := dispatchers.NewAPIServer(hooks, pod, caPEM); err == nil || !strings.Contains(err.Error(), "the defaulter did not run") {
		t.Errorf("apiserver plugins: got %v, want a rejection saying the defaulter did not run", err)
	}
}
