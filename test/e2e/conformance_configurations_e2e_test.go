//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// The scenarios in this file are about the configuration objects themselves: they cannot be
// blocked, and changes to them take effect.

const unwantedConfigMapMessage = "the configmap contains unwanted key and value"

// listSize is how many configurations the listing scenarios create, as upstream.
const listSize = 10

// testDiscovery needs no webhook: it checks that the configuration resources are discoverable,
// the first step of any tool that manages them.
func testDiscovery(t *testing.T, _ *conformanceServer) {
	groups, err := env.Client.Discovery().ServerGroups()
	mustSucceed(t, "reading /apis", err)
	var versions []string
	for _, g := range groups.Groups {
		if g.Name == admissionregistrationv1.GroupName {
			for _, v := range g.Versions {
				versions = append(versions, v.GroupVersion)
			}
		}
	}
	if !slices.Contains(versions, admissionregistrationv1.SchemeGroupVersion.String()) {
		t.Fatalf("/apis lists %s versions %v, want %s among them", admissionregistrationv1.GroupName, versions, admissionregistrationv1.SchemeGroupVersion)
	}
	list, err := env.Client.Discovery().ServerResourcesForGroupVersion(admissionregistrationv1.SchemeGroupVersion.String())
	mustSucceed(t, "reading /apis/"+admissionregistrationv1.SchemeGroupVersion.String(), err)
	kinds := map[string]string{}
	for _, r := range list.APIResources {
		kinds[r.Name] = r.Kind
	}
	for resource, kind := range map[string]string{
		"mutatingwebhookconfigurations":   "MutatingWebhookConfiguration",
		"validatingwebhookconfigurations": "ValidatingWebhookConfiguration",
	} {
		if kinds[resource] != kind {
			t.Errorf("discovery lists resource %s with kind %q, want %q", resource, kinds[resource], kind)
		}
	}
}

func testConfigurationObjectsAreExempt(t *testing.T, server *conformanceServer) {
	s := newScenario(t, server)
	// Both webhooks match every operation on both configuration kinds, for objects labelled for
	// this scenario: were the apiserver to call them, the dummies below could be neither
	// created unchanged nor deleted.
	configurationRules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{admissionregistrationv1.GroupName}, APIVersions: []string{"v1"},
			Resources: []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"},
		},
	}}
	deny := s.validating(denyConfigurationsWebhook)
	deny.Rules, deny.ObjectSelector = configurationRules, s.scope()
	label := s.mutating(labelConfigurationsWebhook)
	label.Rules, label.ObjectSelector = configurationRules, s.scope()
	s.installValidating(s.validatingConfiguration(s.configurationName("deny-configurations"), deny))
	s.installMutating(s.mutatingConfiguration(s.configurationName("label-configurations"), label))

	// The dummies' own webhook matches no namespace: it is never called.
	dummy := s.validating(configMapPolicyWebhook)
	dummy.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{s.key: "no-such-namespace"}}
	meta := metav1.ObjectMeta{Name: s.configurationName("dummy"), Labels: s.selected()}

	t.Run("validating", func(t *testing.T) {
		ctx := context.Background()
		client := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
		created, err := client.Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: meta, Webhooks: []admissionregistrationv1.ValidatingWebhook{dummy}}, metav1.CreateOptions{})
		mustSucceed(t, "creating a dummy validating configuration", err)
		t.Cleanup(func() { _ = client.Delete(context.Background(), created.Name, metav1.DeleteOptions{}) })
		mustNotBeLabelled(t, created.ObjectMeta)
		created.Labels["updated"] = "yes"
		updated, err := client.Update(ctx, created, metav1.UpdateOptions{})
		mustSucceed(t, "updating the dummy validating configuration", err)
		mustNotBeLabelled(t, updated.ObjectMeta)
		mustSucceed(t, "deleting the dummy validating configuration", client.Delete(ctx, created.Name, metav1.DeleteOptions{}))
		_, err = client.Get(ctx, created.Name, metav1.GetOptions{})
		mustBeGone(t, "the deleted dummy", err)
	})
	t.Run("mutating", func(t *testing.T) {
		ctx := context.Background()
		client := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
		created, err := client.Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: meta, Webhooks: []admissionregistrationv1.MutatingWebhook{asMutating(dummy)}}, metav1.CreateOptions{})
		mustSucceed(t, "creating a dummy mutating configuration", err)
		t.Cleanup(func() { _ = client.Delete(context.Background(), created.Name, metav1.DeleteOptions{}) })
		mustNotBeLabelled(t, created.ObjectMeta)
		created.Labels["updated"] = "yes"
		updated, err := client.Update(ctx, created, metav1.UpdateOptions{})
		mustSucceed(t, "updating the dummy mutating configuration", err)
		mustNotBeLabelled(t, updated.ObjectMeta)
		mustSucceed(t, "deleting the dummy mutating configuration", client.Delete(ctx, created.Name, metav1.DeleteOptions{}))
		_, err = client.Get(ctx, created.Name, metav1.GetOptions{})
		mustBeGone(t, "the deleted dummy", err)
	})
}

func mustNotBeLabelled(t *testing.T, meta metav1.ObjectMeta) {
	t.Helper()
	if value, ok := meta.Labels[addedLabel]; ok {
		t.Fatalf("configuration %s was mutated by a webhook: label %s=%s", meta.Name, addedLabel, value)
	}
}

// configMapProbe dry-runs the creation of a ConfigMap with data in the scenario's namespace and
// returns what the apiserver would store.
func (s *scenario) configMapProbe(data map[string]string) (*corev1.ConfigMap, error) {
	return env.Client.CoreV1().ConfigMaps(s.namespace).Create(context.Background(), newConfigMap("probe", data), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}

// nonCompliantIsDenied reports nil when a non-compliant ConfigMap is denied by the policy webhook.
func (s *scenario) nonCompliantIsDenied() error {
	_, err := s.configMapProbe(map[string]string{policyKey: disallowed})
	switch {
	case err == nil:
		return errors.New("a non-compliant configmap was admitted")
	case !apierrors.IsForbidden(err):
		return fmt.Errorf("a non-compliant configmap was rejected for another reason: %w", err)
	}
	return nil
}

// nonCompliantIsAdmitted reports nil when a non-compliant ConfigMap is admitted.
func (s *scenario) nonCompliantIsAdmitted() error {
	if _, err := s.configMapProbe(map[string]string{policyKey: disallowed}); err != nil {
		return fmt.Errorf("a non-compliant configmap was rejected: %w", err)
	}
	return nil
}

// stage1Ran reports nil when a new ConfigMap is mutated by stage 1.
func (s *scenario) stage1Ran() error {
	cm, err := s.configMapProbe(map[string]string{mutationStart: "yes"})
	if err != nil {
		return err
	}
	if cm.Data["mutation-stage-1"] != "yes" {
		return fmt.Errorf("a new configmap was not mutated: data %v", cm.Data)
	}
	return nil
}

// stage1DidNotRun reports nil when a new ConfigMap is left alone.
func (s *scenario) stage1DidNotRun() error {
	cm, err := s.configMapProbe(map[string]string{mutationStart: "yes"})
	if err != nil {
		return err
	}
	if _, ok := cm.Data["mutation-stage-1"]; ok {
		return fmt.Errorf("a new configmap was mutated: data %v", cm.Data)
	}
	return nil
}

// Changing the webhook's only rule to UPDATE, then back to CREATE with a JSON patch.
var (
	updateOnly         = []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
	createAgainByPatch = []byte(`[{"op":"replace","path":"/webhooks/0/rules/0/operations","value":["CREATE"]}]`)
)

func testUpdateValidatingConfiguration(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	policy := s.validating(configMapPolicyWebhook)
	policy.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	config := s.installValidating(s.validatingConfiguration(s.configurationName("update-validating"), policy))
	client := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	mustSucceed(t, "denying before any change", s.nonCompliantIsDenied())

	config.Webhooks[0].Rules[0].Operations = updateOnly
	_, err := client.Update(ctx, config, metav1.UpdateOptions{})
	mustSucceed(t, "updating the configuration to intercept UPDATE only", err)
	eventually(t, "the update to take effect", s.nonCompliantIsAdmitted)

	_, err = client.Patch(ctx, config.Name, types.JSONPatchType, createAgainByPatch, metav1.PatchOptions{})
	mustSucceed(t, "patching the configuration to intercept CREATE again", err)
	eventually(t, "the patch to take effect", s.nonCompliantIsDenied)
}

func testUpdateMutatingConfiguration(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	config := s.installMutating(s.mutatingConfiguration(s.configurationName("update-mutating"), s.mutating(configMapStage1Webhook)))
	client := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	mustSucceed(t, "mutating before any change", s.stage1Ran())

	config.Webhooks[0].Rules[0].Operations = updateOnly
	_, err := client.Update(ctx, config, metav1.UpdateOptions{})
	mustSucceed(t, "updating the configuration to intercept UPDATE only", err)
	eventually(t, "the update to take effect", s.stage1DidNotRun)

	_, err = client.Patch(ctx, config.Name, types.JSONPatchType, createAgainByPatch, metav1.PatchOptions{})
	mustSucceed(t, "patching the configuration to intercept CREATE again", err)
	eventually(t, "the patch to take effect", s.stage1Ran)
}

func testListValidatingConfigurations(t *testing.T, server *conformanceServer) {
	s := newScenario(t, server)
	var want []string
	for i := range listSize {
		config := s.validatingConfiguration(s.configurationName(fmt.Sprintf("list-validating-%d", i)), s.validating(configMapPolicyWebhook))
		config.Labels = s.selected()
		s.createValidating(config)
		want = append(want, config.Name)
	}
	client := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return client.List(ctx, opts)
	}
	s.listThenDeleteCollection(want, list, client.DeleteCollection, "denying", s.nonCompliantIsDenied, s.nonCompliantIsAdmitted)
}

func testListMutatingConfigurations(t *testing.T, server *conformanceServer) {
	s := newScenario(t, server)
	var want []string
	for i := range listSize {
		config := s.mutatingConfiguration(s.configurationName(fmt.Sprintf("list-mutating-%d", i)), s.mutating(configMapStage1Webhook))
		config.Labels = s.selected()
		s.createMutating(config)
		want = append(want, config.Name)
	}
	client := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return client.List(ctx, opts)
	}
	s.listThenDeleteCollection(want, list, client.DeleteCollection, "mutating", s.stage1Ran, s.stage1DidNotRun)
}

// listNames lists objects and returns their names.
func listNames(ctx context.Context, list func(context.Context, metav1.ListOptions) (runtime.Object, error), opts metav1.ListOptions) ([]string, error) {
	l, err := list(ctx, opts)
	if err != nil {
		return nil, err
	}
	items, err := apimeta.ExtractList(l)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, item := range items {
		accessor, err := apimeta.Accessor(item)
		if err != nil {
			return nil, err
		}
		names = append(names, accessor.GetName())
	}
	return names, nil
}

// listThenDeleteCollection checks, for configurations created with the scenario's labels, that
// listing by label finds exactly them while they act (inEffect), and that deleting them as a
// collection ends their effect (gone) and leaves none.
func (s *scenario) listThenDeleteCollection(want []string,
	list func(context.Context, metav1.ListOptions) (runtime.Object, error),
	deleteCollection func(context.Context, metav1.DeleteOptions, metav1.ListOptions) error,
	effect string, inEffect, gone func() error,
) {
	t := s.t
	t.Helper()
	ctx := context.Background()
	for _, name := range want {
		s.waitUntilInEffect(name)
	}
	selector := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(s.selected()).String()}
	got, err := listNames(ctx, list, selector)
	mustSucceed(t, "listing the configurations by label", err)
	want = slices.Sorted(slices.Values(want))
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("listed configurations (-want +got):\n%s", diff)
	}
	mustSucceed(t, effect+" while the configurations exist", inEffect())

	mustSucceed(t, "deleting the configurations as a collection", deleteCollection(ctx, metav1.DeleteOptions{}, selector))
	eventually(t, "the deletion to take effect", gone)
	left, err := listNames(ctx, list, selector)
	mustSucceed(t, "listing the configurations after deleting them", err)
	if len(left) != 0 {
		t.Fatalf("%d configurations left after deletecollection", len(left))
	}
}

// Match conditions stored at creation, then replaced by an update.
var (
	initialMatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "expression-1", Expression: "object.metadata.namespace == 'production'"},
	}
	updatedMatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "expression-1", Expression: "object.metadata.namespace == 'production'"},
		{Name: "expression-2", Expression: "object.metadata.namespace == 'staging'"},
	}
)

func testMatchConditionsCreateAndUpdate(t *testing.T, server *conformanceServer) {
	t.Run("validating", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		s := newScenario(t, server)
		w := s.validating(configMapPolicyWebhook)
		w.MatchConditions = initialMatchConditions
		created := s.createValidating(s.validatingConfiguration(s.configurationName("match-conditions"), w))
		if diff := cmp.Diff(initialMatchConditions, created.Webhooks[0].MatchConditions); diff != "" {
			t.Fatalf("created match conditions (-want +got):\n%s", diff)
		}
		created.Webhooks[0].MatchConditions = updatedMatchConditions
		updated, err := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, created, metav1.UpdateOptions{})
		mustSucceed(t, "updating the match conditions", err)
		if diff := cmp.Diff(updatedMatchConditions, updated.Webhooks[0].MatchConditions); diff != "" {
			t.Fatalf("updated match conditions (-want +got):\n%s", diff)
		}
	})
	t.Run("mutating", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		s := newScenario(t, server)
		w := s.mutating(configMapStage1Webhook)
		w.MatchConditions = initialMatchConditions
		created := s.createMutating(s.mutatingConfiguration(s.configurationName("match-conditions"), w))
		if diff := cmp.Diff(initialMatchConditions, created.Webhooks[0].MatchConditions); diff != "" {
			t.Fatalf("created match conditions (-want +got):\n%s", diff)
		}
		created.Webhooks[0].MatchConditions = updatedMatchConditions
		updated, err := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(ctx, created, metav1.UpdateOptions{})
		mustSucceed(t, "updating the match conditions", err)
		if diff := cmp.Diff(updatedMatchConditions, updated.Webhooks[0].MatchConditions); diff != "" {
			t.Fatalf("updated match conditions (-want +got):\n%s", diff)
		}
	})
}

// badMatchCondition does not parse as CEL.
var badMatchCondition = []admissionregistrationv1.MatchCondition{{Name: "bad-expression", Expression: "object.metadata.name == 'a' &&"}}

func testInvalidMatchConditions(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	checkRejected := func(t *testing.T, err error) {
		t.Helper()
		if !apierrors.IsInvalid(err) {
			t.Fatalf("creating a configuration with a match condition that does not compile = %v, want Invalid", err)
		}
		mustContain(t, err.Error(), "matchConditions[0].expression", "compilation failed")
	}
	validating := s.validating(configMapPolicyWebhook)
	validating.MatchConditions = badMatchCondition
	mutating := s.mutating(configMapStage1Webhook)
	mutating.MatchConditions = badMatchCondition
	t.Run("validating", func(t *testing.T) {
		config := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: s.configurationName("bad-validating")}, Webhooks: []admissionregistrationv1.ValidatingWebhook{validating}}
		_, err := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, config, metav1.CreateOptions{})
		checkRejected(t, err)
	})
	t.Run("mutating", func(t *testing.T) {
		config := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: s.configurationName("bad-mutating")}, Webhooks: []admissionregistrationv1.MutatingWebhook{mutating}}
		_, err := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, config, metav1.CreateOptions{})
		checkRejected(t, err)
	})
}

func testMutateEverythingExceptSkipMe(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	stage1 := s.mutating(configMapStage1Webhook)
	stage1.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "skip-me", Expression: "object.metadata.name != 'skip-me'"}}
	s.installMutating(s.mutatingConfiguration(s.configurationName("skip-me"), stage1))
	configMaps := env.Client.CoreV1().ConfigMaps(s.namespace)

	mutated, err := configMaps.Create(ctx, newConfigMap("mutate-me", map[string]string{mutationStart: "yes"}), metav1.CreateOptions{})
	mustSucceed(t, "creating a configmap", err)
	if diff := cmp.Diff(map[string]string{mutationStart: "yes", "mutation-stage-1": "yes"}, mutated.Data); diff != "" {
		t.Fatalf("configmap mutate-me (-want +got):\n%s", diff)
	}
	skipped, err := configMaps.Create(ctx, newConfigMap("skip-me", map[string]string{mutationStart: "yes"}), metav1.CreateOptions{})
	mustSucceed(t, "creating the skip-me configmap", err)
	if diff := cmp.Diff(map[string]string{mutationStart: "yes"}, skipped.Data); diff != "" {
		t.Fatalf("configmap skip-me (-want +got):\n%s", diff)
	}
}
