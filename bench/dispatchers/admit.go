package dispatchers

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
)

// Admit is admit's dispatcher with the benchmark's webhooks.
type Admit struct {
	dispatcher *dispatch.Dispatcher
	request    engine.Request
}

// NewAdmit builds admit's dispatcher for hooks, recording the apiserver's webhook metrics on a
// registry of its own as kube-apiserver records them, and admitting podJSON on every call.
func NewAdmit(hooks Webhooks, podJSON []byte) (*Admit, error) {
	metrics, err := dispatch.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		return nil, err
	}
	d, err := dispatch.New(dispatch.Options{
		Mutating:   []*admissionregistrationv1.MutatingWebhookConfiguration{hooks.Mutating},
		Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{hooks.Validating},
		Metrics:    metrics,
	})
	if err != nil {
		return nil, fmt.Errorf("building admit's dispatcher: %w", err)
	}
	var meta struct {
		Metadata struct{ Name, Namespace string } `json:"metadata"`
	}
	if err := json.Unmarshal(podJSON, &meta); err != nil {
		return nil, fmt.Errorf("reading the pod's name: %w", err)
	}
	return &Admit{dispatcher: d, request: engine.Request{
		Kind:      podKind,
		Resource:  podResource,
		Name:      meta.Metadata.Name,
		Namespace: meta.Metadata.Namespace,
		Operation: admissionv1.Create,
		Object:    podJSON,
		UserInfo:  requester(),
	}}, nil
}

func (a *Admit) admit(ctx context.Context) (*engine.Result, error) {
	req := a.request // each admission gets its own Request; they share the read-only object
	res, err := a.dispatcher.Admit(ctx, &req)
	if err != nil {
		return nil, fmt.Errorf("admit's dispatcher: %w", err)
	}
	if !res.Allowed {
		return nil, fmt.Errorf("admit's dispatcher rejected the pod: %s", res.Status.Message)
	}
	return res, nil
}

// Admit runs one admission.
func (a *Admit) Admit(ctx context.Context) error {
	_, err := a.admit(ctx)
	return err
}

// Check runs one admission and verifies the admitted Pod.
func (a *Admit) Check(ctx context.Context) error {
	res, err := a.admit(ctx)
	if err != nil {
		return err
	}
	if err := bench.CheckInjectedJSON(a.request.Object, res.Object); err != nil {
		return fmt.Errorf("admit's dispatcher: %w", err)
	}
	return nil
}

// Close does nothing: the dispatcher's idle connections close with the process.
func (a *Admit) Close() {}
