package dispatchers

import (
	"context"
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/webhook"
)

// Dispatcher runs admissions of the benchmark Pod. Implementations are safe for concurrent use.
type Dispatcher interface {
	// Admit runs one admission and fails unless the Pod is admitted.
	Admit(ctx context.Context) error
	// Check runs one admission and verifies that the admitted Pod is the one bench.Inject makes.
	// It costs more than Admit; call it before measuring, not while.
	Check(ctx context.Context) error
	// Close releases what the dispatcher holds (informers, connections).
	Close()
}

// Webhooks are the configurations both dispatchers call.
type Webhooks struct {
	Mutating   *admissionregistrationv1.MutatingWebhookConfiguration
	Validating *admissionregistrationv1.ValidatingWebhookConfiguration
}

// NewWebhooks describes the webhooks of registry (typically servers.AdmitRegistry) served at
// baseURL with the CA caPEM, as the API server stores them: defaulted and valid.
func NewWebhooks(registry *webhook.Registry, baseURL string, caPEM []byte) (Webhooks, error) {
	mutating, validating, err := registry.Configurations(webhook.ConfigOptions{
		Name:         "admit-bench",
		ClientConfig: webhook.ClientConfig{URL: baseURL, CABundle: caPEM},
	})
	if err != nil {
		return Webhooks{}, fmt.Errorf("describing the webhooks: %w", err)
	}
	if mutating == nil || validating == nil {
		return Webhooks{}, errors.New("the registry must hold mutating and validating webhooks")
	}
	config.SetDefaultsMutating(mutating)
	config.SetDefaultsValidating(validating)
	if errs := config.ValidateMutating(mutating); len(errs) > 0 {
		return Webhooks{}, fmt.Errorf("mutating configuration: %w", errs.ToAggregate())
	}
	if errs := config.ValidateValidating(validating); len(errs) > 0 {
		return Webhooks{}, fmt.Errorf("validating configuration: %w", errs.ToAggregate())
	}
	return Webhooks{Mutating: mutating, Validating: validating}, nil
}

var (
	podKind     = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	podResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// requester is the user every admission is made for: the ReplicaSet controller creating a Pod.
func requester() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{
		Username: "system:serviceaccount:kube-system:replicaset-controller",
		UID:      "6a4b9f0e-2f3c-4a57-9d61-8d0c1f6e2b77",
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"},
	}
}

// InputCopy is not a dispatcher but the part of the APIServer loop that is not admission: a
// DeepCopy of the Pod, since admission changes the object it is given. Measure it to subtract it.
type InputCopy struct{ Pod *corev1.Pod }

// Admit copies the Pod.
func (c InputCopy) Admit(context.Context) error {
	if c.Pod.DeepCopy() == nil {
		return errors.New("no pod to copy")
	}
	return nil
}

// Check is Admit: there is nothing else to verify.
func (c InputCopy) Check(ctx context.Context) error { return c.Admit(ctx) }

// Close does nothing.
func (InputCopy) Close() {}
