//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
)

// readinessMarkerLabel labels a readiness marker with the name of the configuration it probes.
const readinessMarkerLabel = "conformance.admit.dev/probes"

// Bounds of the readiness protocol: markers are created every readinessPollInterval until one is
// denied, for at most readinessTimeout.
const (
	readinessPollInterval = 100 * time.Millisecond
	readinessTimeout      = 30 * time.Second
)

// scenario is what one conformance scenario owns, so that scenarios can run side by side: a label
// key no other scenario uses, a namespace its webhooks are scoped to, and a namespace for the
// readiness markers of its configurations. Its methods fail the scenario's test, so they must be
// called from the scenario's goroutine, not from its subtests.
type scenario struct {
	t      *testing.T
	server *conformanceServer
	// key is the scenario's label key. Its namespace is labelled key=true, its markers namespace
	// key=markers, and objects it selects by objectSelector key=true.
	key string
	// namespace is where the scenario creates the objects its webhooks see.
	namespace string
	// markers is where readiness markers are created.
	markers string
}

// newScenario creates the namespaces of a new scenario, which are deleted when t ends.
func newScenario(t *testing.T, server *conformanceServer) *scenario {
	t.Helper()
	s := &scenario{t: t, server: server, key: "conformance-" + rand.String(8)}
	s.namespace = s.createNamespace("conformance", map[string]string{s.key: "true"})
	s.markers = s.createNamespace("markers", map[string]string{s.key: "markers"})
	return s
}

// createNamespace creates a namespace with labels, deleted when the scenario ends, and its
// default ServiceAccount (no controller-manager runs to create it, and the ServiceAccount
// admission plugin refuses pods without it). Its labels are set at creation so that the
// apiserver's namespace lookup never sees it without them.
func (s *scenario) createNamespace(prefix string, labels map[string]string) string {
	s.t.Helper()
	name := prefix + "-" + rand.String(6)
	namespaces := env.Client.CoreV1().Namespaces()
	_, err := namespaces.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("creating namespace %s: %v", name, err)
	}
	s.t.Cleanup(func() { _ = namespaces.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := env.Client.CoreV1().ServiceAccounts(name).Create(context.Background(), account, metav1.CreateOptions{}); err != nil {
		s.t.Fatalf("creating the default ServiceAccount of %s: %v", name, err)
	}
	return name
}

// selected returns the label that the scenario's objectSelectors and namespaceSelectors match.
func (s *scenario) selected() map[string]string { return map[string]string{s.key: "true"} }

// scope returns a selector matching only the scenario's namespaces.
func (s *scenario) scope() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: s.selected()}
}

// configurationName returns a configuration name no other scenario uses.
func (s *scenario) configurationName(purpose string) string {
	return purpose + "-" + s.key
}

// validating returns a copy of the served validating webhook name, scoped to the scenario's namespace.
func (s *scenario) validating(name string) admissionregistrationv1.ValidatingWebhook {
	s.t.Helper()
	w := s.server.validatingWebhook(s.t, name)
	w.NamespaceSelector = s.scope()
	return w
}

// mutating returns a copy of the served mutating webhook name, scoped to the scenario's namespace.
func (s *scenario) mutating(name string) admissionregistrationv1.MutatingWebhook {
	s.t.Helper()
	w := s.server.mutatingWebhook(s.t, name)
	w.NamespaceSelector = s.scope()
	return w
}

// isReady returns the readiness webhook for the configuration named config: it denies the
// markers that probe config and nothing else.
func (s *scenario) isReady(config string) admissionregistrationv1.ValidatingWebhook {
	s.t.Helper()
	w := s.server.validatingWebhook(s.t, isReadyWebhook)
	w.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{s.key: "markers"}}
	w.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{readinessMarkerLabel: config}}
	return w
}

// isReadyMutating is isReady for a mutating configuration: mutating webhooks may deny too.
func (s *scenario) isReadyMutating(config string) admissionregistrationv1.MutatingWebhook {
	s.t.Helper()
	return asMutating(s.isReady(config))
}

// asMutating returns the mutating webhook that calls the same server as v, with the same rules,
// selectors and policies.
func asMutating(v admissionregistrationv1.ValidatingWebhook) admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{
		Name: v.Name, ClientConfig: v.ClientConfig, Rules: v.Rules, FailurePolicy: v.FailurePolicy, MatchPolicy: v.MatchPolicy,
		NamespaceSelector: v.NamespaceSelector, ObjectSelector: v.ObjectSelector, SideEffects: v.SideEffects,
		TimeoutSeconds: v.TimeoutSeconds, AdmissionReviewVersions: v.AdmissionReviewVersions, MatchConditions: v.MatchConditions,
		ReinvocationPolicy: ptr.To(admissionregistrationv1.NeverReinvocationPolicy),
	}
}

// validatingConfiguration returns a configuration holding webhooks and, last, its readiness webhook.
func (s *scenario) validatingConfiguration(name string, webhooks ...admissionregistrationv1.ValidatingWebhook) *admissionregistrationv1.ValidatingWebhookConfiguration {
	s.t.Helper()
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks:   append(slices.Clone(webhooks), s.isReady(name)),
	}
}

// mutatingConfiguration returns a configuration holding webhooks and, last, its readiness webhook.
func (s *scenario) mutatingConfiguration(name string, webhooks ...admissionregistrationv1.MutatingWebhook) *admissionregistrationv1.MutatingWebhookConfiguration {
	s.t.Helper()
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks:   append(slices.Clone(webhooks), s.isReadyMutating(name)),
	}
}

// createValidating creates config, deletes it when the scenario ends, and returns the stored configuration.
func (s *scenario) createValidating(config *admissionregistrationv1.ValidatingWebhookConfiguration) *admissionregistrationv1.ValidatingWebhookConfiguration {
	s.t.Helper()
	configurations := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	stored, err := configurations.Create(context.Background(), config, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("creating ValidatingWebhookConfiguration %s: %v", config.Name, err)
	}
	s.t.Cleanup(func() { _ = configurations.Delete(context.Background(), config.Name, metav1.DeleteOptions{}) })
	return stored
}

// installValidating creates config like createValidating and returns the stored configuration once the
// apiserver calls its webhooks.
func (s *scenario) installValidating(config *admissionregistrationv1.ValidatingWebhookConfiguration) *admissionregistrationv1.ValidatingWebhookConfiguration {
	s.t.Helper()
	stored := s.createValidating(config)
	s.waitUntilInEffect(config.Name)
	return stored
}

// createMutating creates config, deletes it when the scenario ends, and returns the stored configuration.
func (s *scenario) createMutating(config *admissionregistrationv1.MutatingWebhookConfiguration) *admissionregistrationv1.MutatingWebhookConfiguration {
	s.t.Helper()
	configurations := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	stored, err := configurations.Create(context.Background(), config, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("creating MutatingWebhookConfiguration %s: %v", config.Name, err)
	}
	s.t.Cleanup(func() { _ = configurations.Delete(context.Background(), config.Name, metav1.DeleteOptions{}) })
	return stored
}

// installMutating creates config like createMutating and returns the stored configuration once the
// apiserver calls its webhooks.
func (s *scenario) installMutating(config *admissionregistrationv1.MutatingWebhookConfiguration) *admissionregistrationv1.MutatingWebhookConfiguration {
	s.t.Helper()
	stored := s.createMutating(config)
	s.waitUntilInEffect(config.Name)
	return stored
}

// waitUntilInEffect creates readiness markers for the configuration named config until its
// readiness webhook denies one. The apiserver reads configurations through an informer, so a
// configuration takes effect some time after it is stored; a denied marker proves this one has,
// with every webhook in it. Markers are dry-run: none is ever stored.
func (s *scenario) waitUntilInEffect(config string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readinessTimeout)
	defer cancel()
	marker := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "marker-", Labels: map[string]string{readinessMarkerLabel: config}}}
	ticker := time.NewTicker(readinessPollInterval)
	defer ticker.Stop()
	denial := fmt.Sprintf("admission webhook %q denied the request", isReadyWebhook)
	for {
		_, err := env.Client.CoreV1().ConfigMaps(s.markers).Create(ctx, marker, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), denial) {
			return
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("configuration %s not in effect after %v: the last marker got %v", config, readinessTimeout, err)
		case <-ticker.C:
		}
	}
}

// installCRD creates crd, deletes it when the scenario ends, and returns once it is established.
func (s *scenario) installCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	s.t.Helper()
	ctx := context.Background()
	crds := apiextensionsclient.NewForConfigOrDie(env.RESTConfig).ApiextensionsV1().CustomResourceDefinitions()
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		s.t.Fatalf("creating CustomResourceDefinition %s: %v", crd.Name, err)
	}
	s.t.Cleanup(func() { _ = crds.Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) })
	eventually(s.t, "CustomResourceDefinition "+crd.Name+" to be established", func() error {
		got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("conditions %+v", got.Status.Conditions)
	})
}

// mustFailWith fails t unless err is an error whose message contains every part.
func mustFailWith(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s succeeded, want an error containing %q", what, parts)
	}
	mustContain(t, err.Error(), parts...)
}

// mustSucceed fails t with what when err is not nil.
func mustSucceed(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// mustBeGone fails t unless err is a NotFound from reading an object that should not exist.
func mustBeGone(t *testing.T, what string, err error) {
	t.Helper()
	if !apierrors.IsNotFound(err) {
		t.Fatalf("reading %s: got %v, want NotFound", what, err)
	}
}
