package rotator

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/admitkit/admit/certs"
)

// fieldManager names the Rotator's writes in managedFields.
const fieldManager = "admit-cert-rotator"

// Options configure a Rotator. Client, Namespace, SecretName, CertDir and at least one DNS name
// or IP are required.
type Options struct {
	// Client reads and writes the Secret, the Lease and the webhook configurations.
	Client kubernetes.Interface
	// APIExtensions updates the conversion caBundle of CustomResourceDefinitions; required
	// when CustomResourceDefinitions is not empty.
	APIExtensions apiextensionsclient.Interface

	// Namespace and SecretName locate the Secret that holds the CA and the serving
	// certificate (type kubernetes.io/tls, plus ca.crt and ca.key).
	Namespace, SecretName string
	// CertDir is where tls.crt, tls.key and ca.crt are written for the server
	// (certs.CertFileName, certs.KeyFileName, certs.CAFileName).
	CertDir string
	// DNSNames and IPs are the names of the serving certificate: for a webhook behind a
	// Service, "<service>.<namespace>.svc".
	DNSNames []string
	IPs      []net.IP

	// The objects whose caBundle the Rotator owns, by name: every webhook of the named
	// configurations, and the conversion webhook of the named CRDs.
	MutatingWebhookConfigurations   []string
	ValidatingWebhookConfigurations []string
	CustomResourceDefinitions       []string

	// CommonName of the CA; default "admit-webhook-ca".
	CommonName string
	// CAValidity is the CA's lifetime (default 5 years), renewed CARenewBefore its expiry
	// (default a fifth of CAValidity).
	CAValidity, CARenewBefore time.Duration
	// ServingValidity is the serving certificate's lifetime (default 1 year), renewed
	// ServingRenewBefore its expiry (default a third of ServingValidity).
	ServingValidity, ServingRenewBefore time.Duration
	// PublishGrace is how long a new CA is in every caBundle before a certificate it signed is
	// served (default 1 minute): kube-apiserver sees configuration changes through informers.
	PublishGrace time.Duration
	// ResyncInterval bounds the time between two passes of the writer (default 10 minutes);
	// changes to the owned objects trigger a pass at once.
	ResyncInterval time.Duration

	// LeaseName is the Lease of the writer's election, in Namespace; default SecretName +
	// "-rotator". Identity is this replica's name in it; default the host name.
	LeaseName, Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod tune the election; defaults 15 s, 10 s, 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// Logger receives what the Rotator does; default slog.Default().
	Logger *slog.Logger
	// Clock is the time the writer decides renewals by; default time.Now.
	Clock func() time.Time
}

// Rotator keeps the certificates; see the package documentation.
type Rotator struct {
	opts  Options
	log   *slog.Logger
	ready chan struct{}
	once  sync.Once
	// trigger asks the writer for a pass; buffered, so a burst of events makes one pass.
	trigger chan struct{}
}

// New checks opts and fills in the defaults.
func New(opts Options) (*Rotator, error) {
	var errs []error
	if opts.Client == nil {
		errs = append(errs, errors.New("Client is required"))
	}
	if opts.Namespace == "" || opts.SecretName == "" {
		errs = append(errs, errors.New("Namespace and SecretName are required"))
	}
	if opts.CertDir == "" {
		errs = append(errs, errors.New("CertDir is required: the server reads its certificate from there"))
	}
	if len(opts.DNSNames) == 0 && len(opts.IPs) == 0 {
		errs = append(errs, errors.New("DNSNames or IPs are required: the apiserver checks the serving certificate against the name it calls"))
	}
	if len(opts.CustomResourceDefinitions) > 0 && opts.APIExtensions == nil {
		errs = append(errs, errors.New("APIExtensions is required to publish the caBundle of CustomResourceDefinitions"))
	}
	opts.CommonName = cmp.Or(opts.CommonName, "admit-webhook-ca")
	opts.CAValidity = cmp.Or(opts.CAValidity, 5*365*24*time.Hour)
	opts.CARenewBefore = cmp.Or(opts.CARenewBefore, opts.CAValidity/5)
	opts.ServingValidity = cmp.Or(opts.ServingValidity, 365*24*time.Hour)
	opts.ServingRenewBefore = cmp.Or(opts.ServingRenewBefore, opts.ServingValidity/3)
	opts.PublishGrace = cmp.Or(opts.PublishGrace, time.Minute)
	opts.ResyncInterval = cmp.Or(opts.ResyncInterval, 10*time.Minute)
	opts.LeaseName = cmp.Or(opts.LeaseName, opts.SecretName+"-rotator")
	opts.LeaseDuration = cmp.Or(opts.LeaseDuration, 15*time.Second)
	opts.RenewDeadline = cmp.Or(opts.RenewDeadline, 10*time.Second)
	opts.RetryPeriod = cmp.Or(opts.RetryPeriod, 2*time.Second)
	if opts.Identity == "" {
		host, err := os.Hostname()
		if err != nil {
			errs = append(errs, fmt.Errorf("Identity: no host name to default to: %w", err))
		}
		opts.Identity = host
	}
	if opts.ServingRenewBefore >= opts.ServingValidity || opts.CARenewBefore >= opts.CAValidity {
		errs = append(errs, errors.New("renewing before expiry must leave some validity: RenewBefore must be shorter than Validity"))
	}
	if opts.ServingValidity > opts.CAValidity-opts.CARenewBefore {
		errs = append(errs, fmt.Errorf("ServingValidity %v outlives the CA's renewal (CAValidity - CARenewBefore = %v): a serving certificate would expire with its CA", opts.ServingValidity, opts.CAValidity-opts.CARenewBefore))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("certificate rotator: %w", err)
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Rotator{
		opts: opts, log: log.With("component", "cert-rotator", "secret", opts.Namespace+"/"+opts.SecretName),
		ready: make(chan struct{}), trigger: make(chan struct{}, 1),
	}, nil
}

// Ready is closed once the certificate files are in CertDir: start serving after it.
func (r *Rotator) Ready() <-chan struct{} { return r.ready }

// Run keeps the certificates until ctx ends: it syncs the Secret into CertDir, and takes part
// in the election of the writer. It returns nil when ctx ends, an error when the watches cannot
// start.
func (r *Rotator) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()

	secrets := r.watchOne(func(opts metav1.ListOptions) (runtime.Object, error) {
		return r.opts.Client.CoreV1().Secrets(r.opts.Namespace).List(ctx, opts)
	}, func(opts metav1.ListOptions) (watch.Interface, error) {
		return r.opts.Client.CoreV1().Secrets(r.opts.Namespace).Watch(ctx, opts)
	}, r.opts.SecretName, &corev1.Secret{})
	if _, err := secrets.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.syncFiles(obj) },
		UpdateFunc: func(_, obj any) { r.syncFiles(obj) },
		DeleteFunc: func(any) { r.poke() },
	}); err != nil {
		return fmt.Errorf("certificate rotator: watching the Secret: %w", err)
	}
	informers := append([]cache.SharedIndexInformer{secrets}, r.ownedInformers(ctx)...)
	for _, inf := range informers {
		wg.Add(1)
		go func() { defer wg.Done(); inf.Run(ctx.Done()) }()
	}

	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: r.opts.Namespace, Name: r.opts.LeaseName},
		Client:     r.opts.Client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: r.opts.Identity},
	}
	for ctx.Err() == nil {
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, Name: r.opts.LeaseName, ReleaseOnCancel: true,
			LeaseDuration: r.opts.LeaseDuration, RenewDeadline: r.opts.RenewDeadline, RetryPeriod: r.opts.RetryPeriod,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: r.write,
				OnStoppedLeading: func() { r.log.Info("no longer the writer") },
			},
		})
		if err != nil {
			return fmt.Errorf("certificate rotator: %w", err)
		}
		elector.Run(ctx) // returns when leadership is lost or ctx ends; then stand again
	}
	return nil
}

// write is the writer's loop, while this replica holds the Lease.
func (r *Rotator) write(ctx context.Context) {
	r.log.Info("elected the writer", "identity", r.opts.Identity)
	backoff := time.Second
	for {
		next, err := r.reconcile(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.log.Error("certificate pass failed", "err", err, "retryIn", backoff)
			next, backoff = backoff, min(2*backoff, time.Minute)
		} else {
			backoff = time.Second
		}
		timer := time.NewTimer(next)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-r.trigger:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// poke asks the writer for a pass.
func (r *Rotator) poke() {
	select {
	case r.trigger <- struct{}{}:
	default:
	}
}

// syncFiles copies the Secret's certificate into CertDir when it changed, and asks the writer
// for a pass (a Secret changed by hand gets checked).
func (r *Rotator) syncFiles(obj any) {
	defer r.poke()
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return
	}
	st := parseSecret(s)
	if st.serving == nil || len(st.trusted) == 0 {
		return // not written yet, or unusable: the writer replaces it
	}
	bundle := st.bundlePEM()
	if r.filesHold(bundle, st.certPEM, st.keyPEM) {
		r.once.Do(func() { close(r.ready) })
		return
	}
	if err := certs.WriteFilesPEM(r.opts.CertDir, bundle, st.certPEM, st.keyPEM); err != nil {
		r.log.Error("writing the certificate files", "err", err)
		return
	}
	r.log.Info("certificate files written", "dir", r.opts.CertDir, "notAfter", st.serving.NotAfter)
	r.once.Do(func() { close(r.ready) })
}

// filesHold says whether CertDir already holds these contents: an informer's resync then
// writes nothing, and the server reloads nothing.
func (r *Rotator) filesHold(bundle, certPEM, keyPEM []byte) bool {
	for name, want := range map[string][]byte{certs.CAFileName: bundle, certs.CertFileName: certPEM, certs.KeyFileName: keyPEM} {
		if got, err := os.ReadFile(filepath.Join(r.opts.CertDir, name)); err != nil || !bytes.Equal(got, want) {
			return false
		}
	}
	return true
}

// ownedInformers watch the owned objects one by one (a field selector on the name, which RBAC
// limited by resourceNames allows): a change, such as a kubectl apply that emptied a caBundle,
// asks the writer for a pass.
func (r *Rotator) ownedInformers(ctx context.Context) []cache.SharedIndexInformer {
	var out []cache.SharedIndexInformer
	add := func(inf cache.SharedIndexInformer) {
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { r.poke() }, UpdateFunc: func(_, _ any) { r.poke() }, DeleteFunc: func(any) { r.poke() },
		})
		out = append(out, inf)
	}
	admission := r.opts.Client.AdmissionregistrationV1()
	for _, name := range r.opts.MutatingWebhookConfigurations {
		add(r.watchOne(func(o metav1.ListOptions) (runtime.Object, error) {
			return admission.MutatingWebhookConfigurations().List(ctx, o)
		},
			func(o metav1.ListOptions) (watch.Interface, error) {
				return admission.MutatingWebhookConfigurations().Watch(ctx, o)
			},
			name, &admissionregistrationv1.MutatingWebhookConfiguration{}))
	}
	for _, name := range r.opts.ValidatingWebhookConfigurations {
		add(r.watchOne(func(o metav1.ListOptions) (runtime.Object, error) {
			return admission.ValidatingWebhookConfigurations().List(ctx, o)
		},
			func(o metav1.ListOptions) (watch.Interface, error) {
				return admission.ValidatingWebhookConfigurations().Watch(ctx, o)
			},
			name, &admissionregistrationv1.ValidatingWebhookConfiguration{}))
	}
	for _, name := range r.opts.CustomResourceDefinitions {
		crds := r.opts.APIExtensions.ApiextensionsV1().CustomResourceDefinitions()
		add(r.watchOne(func(o metav1.ListOptions) (runtime.Object, error) { return crds.List(ctx, o) },
			func(o metav1.ListOptions) (watch.Interface, error) { return crds.Watch(ctx, o) },
			name, &apiextensionsv1.CustomResourceDefinition{}))
	}
	return out
}

// watchOne is an informer on the one object named name.
func (r *Rotator) watchOne(list func(metav1.ListOptions) (runtime.Object, error), watchFunc func(metav1.ListOptions) (watch.Interface, error), name string, example runtime.Object) cache.SharedIndexInformer {
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	lw := &cache.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = selector
			return list(o)
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = selector
			return watchFunc(o)
		},
	}
	return cache.NewSharedIndexInformer(lw, example, r.opts.ResyncInterval, cache.Indexers{})
}
