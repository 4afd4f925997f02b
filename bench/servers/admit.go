package servers

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/webhook"
)

// Names of the webhooks admit's server registers. The dispatcher benchmark calls all three; the
// serving benchmark calls the mutating one.
const (
	InjectWebhook   = "inject.bench.admit.dev"
	ImagesWebhook   = "images.bench.admit.dev"
	InjectedWebhook = "injected.bench.admit.dev"
)

var podKind = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// AdmitRegistry returns the registry admit's server serves: the Pod defaulter at MutatePath and
// two validating webhooks, one requiring an image on every container and one requiring the label
// the defaulter adds (so a dispatcher that skipped the mutation fails validation).
func AdmitRegistry(opts webhook.HTTPOptions) (*webhook.Registry, error) {
	registry := webhook.NewRegistry(opts)
	for _, w := range []webhook.Webhook{
		{Name: InjectWebhook, Type: webhook.TypeMutating, Kind: podKind, Resource: "pods", Path: MutatePath,
			Handler: webhook.DefaultingHandler[*corev1.Pod](webhook.DefaulterFunc[*corev1.Pod](inject))},
		{Name: ImagesWebhook, Type: webhook.TypeValidating, Kind: podKind, Resource: "pods",
			Handler: webhook.ValidatingHandler[*corev1.Pod](podValidator(requireImages))},
		{Name: InjectedWebhook, Type: webhook.TypeValidating, Kind: podKind, Resource: "pods", Path: "/validate-core-v1-pod-injected",
			Handler: webhook.ValidatingHandler[*corev1.Pod](podValidator(requireInjected))},
	} {
		if err := registry.Register(w); err != nil {
			return nil, fmt.Errorf("registering %s: %w", w.Name, err)
		}
	}
	return registry, nil
}

func inject(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
	bench.Inject(pod)
	return nil, nil
}

func requireImages(pod *corev1.Pod) field.ErrorList {
	var errs field.ErrorList
	for i, c := range pod.Spec.Containers {
		if c.Image == "" {
			errs = append(errs, field.Required(field.NewPath("spec", "containers").Index(i).Child("image"), "every container needs an image"))
		}
	}
	return errs
}

func requireInjected(pod *corev1.Pod) field.ErrorList {
	if pod.Labels[bench.InjectedLabel] != "true" {
		return field.ErrorList{field.Required(field.NewPath("metadata", "labels").Key(bench.InjectedLabel), "the defaulter did not run")}
	}
	return nil
}

// podValidator checks created and updated Pods with one function and allows deletions.
type podValidator func(*corev1.Pod) field.ErrorList

func (v podValidator) ValidateCreate(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
	return nil, webhook.Invalid(v(pod))
}

func (v podValidator) ValidateUpdate(_ context.Context, _ *webhook.Request, _, pod *corev1.Pod) ([]string, error) {
	return nil, webhook.Invalid(v(pod))
}

func (v podValidator) ValidateDelete(context.Context, *webhook.Request, *corev1.Pod) ([]string, error) {
	return nil, nil
}

// startAdmit serves AdmitRegistry with webhook.Server, recording admission metrics as a
// production server would (controller-runtime records its own).
func startAdmit(ctx context.Context, certDir string) (*Running, error) {
	metricsRegistry := prometheus.NewRegistry()
	metrics, err := webhook.NewMetrics(metricsRegistry)
	if err != nil {
		return nil, err
	}
	registry, err := AdmitRegistry(webhook.HTTPOptions{Metrics: metrics})
	if err != nil {
		return nil, err
	}
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr:        "127.0.0.1:0",
		CertFile:    filepath.Join(certDir, certs.CertFileName),
		KeyFile:     filepath.Join(certDir, certs.KeyFileName),
		Handler:     registry,
		Gatherer:    metricsRegistry,
		Metrics:     metrics,
		GracePeriod: 5 * time.Second,
	})
	if err != nil {
		return nil, err
	}
	if err := server.Listen(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx) }()
	return &Running{URL: "https://" + server.Addr().String(), stop: func() error {
		cancel()
		return <-done
	}}, nil
}
