//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admitkit/admit/lint"
)

// TestLintReadsPoliciesFromTheCluster stores admission policies in the real kube-apiserver —
// one whose expression does not fit the pods it matches and that nothing binds, one whose
// binding names parameters that are not there — and lints the cluster through its kubeconfig: the policies, their
// bindings and their parameters are read, validated and checked as files would be.
func TestLintReadsPoliciesFromTheCluster(t *testing.T) {
	ctx := context.Background()
	ns, selector := newNamespace(t, "lint-policies")
	api := env.Client.AdmissionregistrationV1()
	// The bindings select namespaces by a label no namespace carries: the policies are stored
	// and read, but never enforced on the other tests sharing the apiserver.
	nowhere := &metav1.LabelSelector{MatchLabels: map[string]string{"admit-e2e-nowhere": ns}}

	typeErrors := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-types"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: nowhere,
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				}}},
			},
			Validations: []admissionregistrationv1.Validation{
				{Expression: "object.spec.containers.size() > 0"},
				{Expression: "object.spec.replicas <= 5"},
			},
		},
	}
	params := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-params"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind:        &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: typeErrors.Spec.MatchConstraints.DeepCopy(),
			Validations:      []admissionregistrationv1.Validation{{Expression: "object.metadata.name.size() <= int(params.data.maxLength)"}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-params"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        params.Name,
			ParamRef:          &admissionregistrationv1.ParamRef{Name: "limits", Namespace: ns, ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)},
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources:    &admissionregistrationv1.MatchResources{NamespaceSelector: nowhere},
		},
	}
	for _, p := range []*admissionregistrationv1.ValidatingAdmissionPolicy{typeErrors, params} {
		_, err := api.ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{})
		mustSucceed(t, "creating ValidatingAdmissionPolicy "+p.Name, err)
		t.Cleanup(func() {
			_ = api.ValidatingAdmissionPolicies().Delete(context.Background(), p.Name, metav1.DeleteOptions{})
		})
	}
	_, err := api.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{})
	mustSucceed(t, "creating ValidatingAdmissionPolicyBinding "+binding.Name, err)
	t.Cleanup(func() {
		_ = api.ValidatingAdmissionPolicyBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
	// Parameters of the kind exist in the namespace, but not the one the binding names.
	_, err = env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "limit", Labels: selector}, Data: map[string]string{"maxLength": "20"},
	}, metav1.CreateOptions{})
	mustSucceed(t, "creating the ConfigMap", err)

	findings := lintCluster(t)
	type view struct{ Rule, Kind, Name, Field string }
	var got []view
	for _, f := range findings {
		if f.Configuration == typeErrors.Name || f.Configuration == params.Name {
			got = append(got, view{f.Rule, f.Kind, f.Configuration, f.Field})
		}
	}
	want := []view{
		{"F05", "ValidatingAdmissionPolicy", typeErrors.Name, "spec.validations[1].expression"},
		// Nothing binds the first policy: it never runs.
		{"F07", "ValidatingAdmissionPolicy", typeErrors.Name, "metadata.name"},
		{"F02", "ValidatingAdmissionPolicyBinding", binding.Name, "spec.paramRef"},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Fatalf("admit lint --kubeconfig findings on the test's policies (-want +got):\n%s", diff)
	}
	for _, f := range findings {
		switch {
		case f.Rule == "F05" && f.Configuration == typeErrors.Name:
			mustContain(t, f.Message, "Pod (v1)", "undefined field 'replicas'")
		case f.Rule == "F02" && f.Configuration == binding.Name:
			if f.Severity != lint.Error {
				t.Errorf("F02 severity %s, want error: the binding denies while its parameters are missing", f.Severity)
			}
			mustContain(t, f.Message, `named "limits"`, ns, "other ConfigMap objects")
		}
	}
}

// lintCluster runs `admit lint --kubeconfig` on the test apiserver with every rule shown and
// returns its findings.
func lintCluster(t *testing.T) []lint.Finding {
	t.Helper()
	cmd := exec.Command(admitBinary(t), "lint", "--kubeconfig", env.KubeconfigPath, "--severity", "info", "-o", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("running admit lint: %v", err)
	}
	var report struct {
		Findings []lint.Finding `json:"findings"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("decoding the output of admit lint: %v\nstdout: %s\nstderr: %s", err, out, stderr.Bytes())
	}
	return report.Findings
}
