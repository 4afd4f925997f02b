package servers

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/admitkit/admit/bench"
)

// crInjector is the benchmark's defaulter in controller-runtime's form.
type crInjector struct{}

func (crInjector) Default(_ context.Context, pod *corev1.Pod) error {
	bench.Inject(pod)
	return nil
}

// startControllerRuntime serves the defaulter with controller-runtime's webhook server, set up as
// a kubebuilder project is: admission.WithDefaulter on a scheme with the core types, HTTP/2 off.
func startControllerRuntime(ctx context.Context, certDir string) (*Running, error) {
	// controller-runtime logs through a process-wide logger and complains on stderr when none is
	// set; discard its logs as admit's server discards its own (no logger given).
	ctrllog.SetLogger(logr.Discard())

	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the scheme: %w", err)
	}
	// The server takes a port number, not a listener; a port taken between the probe and the
	// bind makes Start fail at once, so try a few.
	var lastErr error
	for range 3 {
		port, err := freeLoopbackPort()
		if err != nil {
			return nil, err
		}
		server := ctrlwebhook.NewServer(ctrlwebhook.Options{
			Host:    "127.0.0.1",
			Port:    port,
			CertDir: certDir,
			TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
		})
		server.Register(MutatePath, admission.WithDefaulter[*corev1.Pod](scheme, crInjector{}))
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- server.Start(runCtx) }()
		select {
		case err := <-done:
			cancel()
			lastErr = err
			continue
		case <-time.After(200 * time.Millisecond):
		}
		return &Running{URL: fmt.Sprintf("https://127.0.0.1:%d", port), stop: func() error {
			cancel()
			return <-done
		}}, nil
	}
	return nil, errors.Join(errors.New("controller-runtime's server did not start on a free port in three tries"), lastErr)
}
