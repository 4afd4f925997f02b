package dispatchers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/admitkit/admit/bench"
)

// APIServer is kube-apiserver's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins
// with the benchmark's webhooks.
type APIServer struct {
	mutating   *mutating.Plugin
	validating *validating.Plugin
	objects    admission.ObjectInterfaces
	pod        *corev1.Pod
	user       user.Info
	stop       chan struct{}
}

// NewAPIServer sets the plugins up as kube-apiserver's admission initializers would, with hooks
// and pod's namespace served by a fake clientset, waits for their informers to sync and checks one
// admission. caPEM is the CA the webhooks' serving certificate chains to.
func NewAPIServer(hooks Webhooks, pod *corev1.Pod, caPEM []byte) (*APIServer, error) {
	mutatingPlugin, err := mutating.NewMutatingWebhook(nil)
	if err != nil {
		return nil, fmt.Errorf("creating the mutating plugin: %w", err)
	}
	validatingPlugin, err := validating.NewValidatingAdmissionWebhook(nil)
	if err != nil {
		return nil, fmt.Errorf("creating the validating plugin: %w", err)
	}
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   pod.Namespace,
		Labels: map[string]string{corev1.LabelMetadataName: pod.Namespace},
	}}
	client := fake.NewClientset(namespace, hooks.Mutating, hooks.Validating)
	factory := informers.NewSharedInformerFactory(client, 0)
	// The webhooks are reached by URL; the apiserver asks this resolver how to authenticate to
	// them, and the answer is only to trust their CA.
	auth := staticAuthentication{config: &rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: caPEM}}}
	wrap := func(webhookutil.AuthenticationInfoResolver) webhookutil.AuthenticationInfoResolver { return auth }
	for _, plugin := range []interface {
		SetAuthenticationInfoResolverWrapper(webhookutil.AuthenticationInfoResolverWrapper)
		SetExternalKubeClientSet(kubernetes.Interface)
		SetExternalKubeInformerFactory(informers.SharedInformerFactory)
	}{mutatingPlugin, validatingPlugin} {
		plugin.SetAuthenticationInfoResolverWrapper(wrap)
		plugin.SetExternalKubeClientSet(client)
		plugin.SetExternalKubeInformerFactory(factory)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	for informer, synced := range factory.WaitForCacheSync(stop) {
		if !synced {
			close(stop)
			return nil, fmt.Errorf("informer for %v did not sync", informer)
		}
	}
	if err := mutatingPlugin.ValidateInitialization(); err != nil {
		close(stop)
		return nil, fmt.Errorf("initialising the mutating plugin: %w", err)
	}
	if err := validatingPlugin.ValidateInitialization(); err != nil {
		close(stop)
		return nil, fmt.Errorf("initialising the validating plugin: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		close(stop)
		return nil, fmt.Errorf("building the scheme: %w", err)
	}
	who := requester()
	a := &APIServer{
		mutating:   mutatingPlugin,
		validating: validatingPlugin,
		objects:    admission.NewObjectInterfacesFromScheme(scheme),
		pod:        withoutTypeMeta(pod),
		user:       &user.DefaultInfo{Name: who.Username, UID: who.UID, Groups: who.Groups},
		stop:       stop,
	}
	if err := a.Check(context.Background()); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *APIServer) admit(ctx context.Context) (*corev1.Pod, error) {
	pod := a.pod.DeepCopy()
	attr := admission.NewAttributesRecord(pod, nil, podKind, pod.Namespace, pod.Name, podResource, "",
		admission.Create, &metav1.CreateOptions{}, false, a.user)
	if err := a.mutating.Admit(ctx, attr, a.objects); err != nil {
		return nil, fmt.Errorf("the apiserver's mutating plugin: %w", err)
	}
	if err := a.validating.Validate(ctx, attr, a.objects); err != nil {
		return nil, fmt.Errorf("the apiserver's validating plugin: %w", err)
	}
	admitted, ok := attr.GetObject().(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("the apiserver's plugins left a %T, want a *v1.Pod", attr.GetObject())
	}
	return admitted, nil
}

// Admit runs one admission.
func (a *APIServer) Admit(ctx context.Context) error {
	_, err := a.admit(ctx)
	return err
}

// Check runs one admission and verifies the admitted Pod.
func (a *APIServer) Check(ctx context.Context) error {
	admitted, err := a.admit(ctx)
	if err != nil {
		return err
	}
	want := a.pod.DeepCopy()
	bench.Inject(want)
	if !equality.Semantic.DeepEqual(want, admitted) {
		return errors.Join(errors.New("the apiserver's plugins admitted another pod than bench.Inject makes"), bench.CheckInjected(admitted))
	}
	return nil
}

// withoutTypeMeta copies pod without apiVersion and kind, as the apiserver's decoder hands typed
// objects to admission.
func withoutTypeMeta(pod *corev1.Pod) *corev1.Pod {
	c := pod.DeepCopy()
	c.TypeMeta = metav1.TypeMeta{}
	return c
}

// Close stops the plugins' informers.
func (a *APIServer) Close() { close(a.stop) }

// staticAuthentication answers every authentication-info lookup with the same client config.
type staticAuthentication struct{ config *rest.Config }

func (s staticAuthentication) ClientConfigFor(string) (*rest.Config, error) {
	return s.copyConfig(), nil
}

func (s staticAuthentication) ClientConfigForService(string, string, int) (*rest.Config, error) {
	return s.copyConfig(), nil
}

// copyConfig copies the config with a CA bundle of its own and no spare capacity: the plugins
// append the webhook's caBundle to it, concurrently for parallel validating webhooks, and
// rest.CopyConfig alone would let them append into one shared array.
func (s staticAuthentication) copyConfig() *rest.Config {
	c := rest.CopyConfig(s.config)
	c.TLSClientConfig.CAData = slices.Clip(bytes.Clone(s.config.TLSClientConfig.CAData))
	return c
}
