//go:build e2e

package e2e

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admitkit/admit/lint"
)

// runlevelLabel labels a namespace with its runlevel: the key admit lint reads.
const runlevelLabel = lint.RunlevelLabel

// webhookServerRunlevel is the runlevel of namespaces hosting webhook servers: a configuration
// whose server runs there must exempt it and every level below.
const webhookServerRunlevel = 2

// downPodPolicy is the pod webhook of a runlevel-2 stack whose server is down: the apiserver's
// calls to it are refused, and it fails closed.
func (s *scenario) downPodPolicy(downURL string) admissionregistrationv1.ValidatingWebhook {
	w := s.validating(podPolicyWebhook)
	w.Name = "runlevel-2-pod-policy.conformance.admit.dev"
	w.ClientConfig.URL = &downURL
	w.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	return w
}

// testRunlevelBootstrapping is the bootstrapping case of DESIGN.md: while a fail-closed webhook is
// down, the namespaces its configuration exempts by runlevel still admit pods (so what the
// webhook depends on can restart), and a configuration without the exemption blocks them.
func testRunlevelBootstrapping(t *testing.T, server *conformanceServer) {
	downURL := fmt.Sprintf("https://127.0.0.1:%d/pods", freePort(t))

	t.Run("a configuration exempting runlevels 0 to 2 admits pods there", func(t *testing.T) {
		t.Parallel()
		s := newScenario(t, server)
		policy := s.downPodPolicy(downURL)
		policy.NamespaceSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{
			Key: runlevelLabel, Operator: metav1.LabelSelectorOpNotIn, Values: runlevelsUpTo(webhookServerRunlevel),
		}}
		stored := s.installValidating(s.validatingConfiguration(s.configurationName("runlevel-exempt"), policy))

		tests := []struct {
			runlevel  string // "" for a namespace without the label
			admitted  bool
			namespace string
		}{
			{runlevel: "0", admitted: true},
			{runlevel: "1", admitted: true},
			{runlevel: "2", admitted: true},
			{runlevel: "3", admitted: false},
			{runlevel: "", admitted: false},
		}
		var namespaces []string
		for i, tt := range tests {
			labels := s.selected()
			if tt.runlevel != "" {
				labels[runlevelLabel] = tt.runlevel
			}
			tests[i].namespace = s.createNamespace("runlevel", labels)
			namespaces = append(namespaces, tests[i].namespace)
		}
		for _, tt := range tests {
			t.Run("runlevel "+cmp.Or(tt.runlevel, "unset"), func(t *testing.T) {
				_, err := env.Client.CoreV1().Pods(tt.namespace).Create(context.Background(), newPod("app", nil, "app"), metav1.CreateOptions{})
				if tt.admitted {
					mustSucceed(t, "creating a pod in an exempt namespace while the webhook is down", err)
					return
				}
				mustFailClosed(t, err, policy.Name)
			})
		}
		objects := []string{"validatingwebhookconfiguration/" + stored.Name}
		for _, ns := range namespaces {
			objects = append(objects, "namespace/"+ns)
		}
		if _, findings := admitLint(t, objects...); len(findings) != 0 {
			t.Fatalf("admit lint flags the exempting configuration: %+v", findings)
		}
	})

	t.Run("a configuration without the exemption blocks pods at runlevel 1", func(t *testing.T) {
		t.Parallel()
		s := newScenario(t, server)
		policy := s.downPodPolicy(downURL)
		stored := s.installValidating(s.validatingConfiguration(s.configurationName("runlevel-blind"), policy))

		ns := s.createNamespace("runlevel", map[string]string{s.key: "true", runlevelLabel: "1"})
		_, err := env.Client.CoreV1().Pods(ns).Create(context.Background(), newPod("app", nil, "app"), metav1.CreateOptions{})
		mustFailClosed(t, err, policy.Name)

		// What the apiserver just did, admit lint predicts from the configuration and the namespace.
		exitCode, findings := admitLint(t, "validatingwebhookconfiguration/"+stored.Name, "namespace/"+ns)
		if exitCode != 1 {
			t.Fatalf("admit lint exited with %d, want 1 (findings)", exitCode)
		}
		type view struct{ Rule, Webhook, Field string }
		var got []view
		for _, f := range findings {
			got = append(got, view{f.Rule, f.Webhook, f.Field})
			mustContain(t, f.Message, ns)
		}
		want := []view{{lowerRunlevelRule, policy.Name, "webhooks[0].namespaceSelector"}}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Fatalf("admit lint findings (-want +got):\n%s", diff)
		}
	})
}

// lowerRunlevelRule is lint's rule against fail-closed webhooks that intercept namespaces at or
// below their configuration's runlevel.
const lowerRunlevelRule = "B03"

// admitLint pipes `kubectl get OBJECT... -o yaml` into `admit lint -o json -`, the way an
// administrator lints what a cluster runs, and returns lint's exit code and the findings of
// lowerRunlevelRule it reported.
func admitLint(t *testing.T, objects ...string) (exitCode int, findings []lint.Finding) {
	t.Helper()
	manifest, _, err := env.Kubectl(context.Background(), nil, append([]string{"get", "-o", "yaml"}, objects...)...)
	mustSucceed(t, "reading the objects to lint", err)
	cmd := exec.Command(admitBinary(t), "lint", "-o", "json", "-")
	cmd.Stdin = bytes.NewReader(manifest)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		exitCode = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("running admit lint: %v", err)
	}
	var report struct {
		Findings []lint.Finding `json:"findings"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("decoding the output of admit lint (exit code %d): %v\nstdout: %s\nstderr: %s", exitCode, err, out, stderr.Bytes())
	}
	for _, f := range report.Findings {
		if f.Rule == lowerRunlevelRule {
			findings = append(findings, f)
		}
	}
	return exitCode, findings
}

// mustFailClosed fails t unless err is the internal error of a failed call to webhook.
func mustFailClosed(t *testing.T, err error, webhook string) {
	t.Helper()
	if !apierrors.IsInternalError(err) {
		t.Fatalf("creating a pod while the webhook is down = %v, want an internal error (500)", err)
	}
	mustContain(t, err.Error(), fmt.Sprintf("failed calling webhook %q", webhook))
}

// runlevelsUpTo returns the runlevels 0 to level as label values.
func runlevelsUpTo(level int) []string {
	var out []string
	for l := 0; l <= level; l++ {
		out = append(out, fmt.Sprint(l))
	}
	return out
}
