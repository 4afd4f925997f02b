//go:build e2e

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// runlevelLabel labels a namespace with its runlevel; it is the key lint/ documents
// (lint.RunlevelLabel).
const runlevelLabel = "admit.dev/runlevel"

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
		s.installValidating(s.validatingConfiguration(s.configurationName("runlevel-exempt"), policy))

		tests := []struct {
			runlevel string // "" for a namespace without the label
			admitted bool
		}{
			{runlevel: "0", admitted: true},
			{runlevel: "1", admitted: true},
			{runlevel: "2", admitted: true},
			{runlevel: "3", admitted: false},
			{runlevel: "", admitted: false},
		}
		for _, tt := range tests {
			t.Run("runlevel "+cmp.Or(tt.runlevel, "unset"), func(t *testing.T) {
				labels := s.selected()
				if tt.runlevel != "" {
					labels[runlevelLabel] = tt.runlevel
				}
				ns := s.createNamespace("runlevel", labels)
				_, err := env.Client.CoreV1().Pods(ns).Create(context.Background(), newPod("app", nil, "app"), metav1.CreateOptions{})
				if tt.admitted {
					mustSucceed(t, "creating a pod in an exempt namespace while the webhook is down", err)
					return
				}
				mustFailClosed(t, err, policy.Name)
			})
		}
	})

	t.Run("a configuration without the exemption blocks pods at runlevel 1", func(t *testing.T) {
		t.Parallel()
		s := newScenario(t, server)
		policy := s.downPodPolicy(downURL)
		s.installValidating(s.validatingConfiguration(s.configurationName("runlevel-blind"), policy))

		ns := s.createNamespace("runlevel", map[string]string{s.key: "true", runlevelLabel: "1"})
		_, err := env.Client.CoreV1().Pods(ns).Create(context.Background(), newPod("app", nil, "app"), metav1.CreateOptions{})
		mustFailClosed(t, err, policy.Name)
	})
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
