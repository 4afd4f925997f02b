package webhook

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// ClientConfig says how the apiserver reaches the server: through a Service, or a URL.
type ClientConfig struct {
	// Service and Namespace name the Service in front of the server (service mode). In URL
	// mode Namespace may still name the server's namespace, which the configurations exempt.
	Service, Namespace string
	// Port of the Service; default 443.
	Port int32
	// URL is the server's base URL, e.g. "https://127.0.0.1:9443" (URL mode; used when Service is empty).
	URL string
	// CABundle is the PEM CA that signed the serving certificate.
	CABundle []byte
}

// servicePort is the Service's port, 443 when unset.
func (c ClientConfig) servicePort() int32 {
	if c.Port == 0 {
		return 443
	}
	return c.Port
}

// urlOf is the URL of path on a server reached by URL.
func (c ClientConfig) urlOf(path string) string { return strings.TrimSuffix(c.URL, "/") + path }

// ConfigOptions shape the configurations the registry describes.
type ConfigOptions struct {
	// Name of both configurations.
	Name string
	ClientConfig
	// ExemptNamespaces are never sent to the webhooks, in addition to kube-system and the server's
	// own namespace (ClientConfig.Namespace): a webhook must not intercept what it depends on.
	ExemptNamespaces []string
	// ServeOwnNamespace sends the webhooks objects of the server's own namespace too, which is
	// exempt by default: an operator installed in one namespace whose custom resources live
	// beside it (OLM's OwnNamespace mode) needs it. The trade-off: while the server is down, a
	// fail-closed webhook then blocks the writes it intercepts in that namespace, the server's
	// own recovery included if it intercepts Pods or Deployments there. Register such webhooks
	// for the operator's own kinds only, or with failurePolicy Ignore.
	ServeOwnNamespace bool
	// Runlevel is the server's bootstrap level (default 2: a namespace hosting webhook servers).
	// Namespaces labelled RunlevelLabel with this level or a lower one (control plane, add-ons the
	// server needs, other webhook servers) are exempt, so the webhooks never block what brings
	// their own server back.
	Runlevel int
}

// RunlevelLabel marks a namespace's bootstrap level: 0 control plane, 1 add-ons webhook servers
// need (DNS, CNI, storage), 2 webhook servers, higher for webhooks that depend on other webhooks.
// Only cluster administrators should be allowed to set it: a labelled namespace is exempt.
const RunlevelLabel = "admit.dev/runlevel"

// DefaultRunlevel is the level of a namespace that hosts webhook servers.
const DefaultRunlevel = 2

// Configurations describes the registered webhooks as a mutating and a validating configuration;
// either is nil when no webhook of its type is registered.
func (r *Registry) Configurations(opts ConfigOptions) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	if opts.Name == "" {
		return nil, nil, errors.New("configuration name is required")
	}
	if msgs := validation.IsDNS1123Subdomain(opts.Name); len(msgs) > 0 {
		return nil, nil, fmt.Errorf("configuration name %q: %s", opts.Name, strings.Join(msgs, "; "))
	}
	if (opts.Service == "") == (opts.URL == "") {
		return nil, nil, errors.New("exactly one of service or URL is required in the client config")
	}
	if opts.Service != "" && opts.Namespace == "" {
		return nil, nil, errors.New("a service client config needs the service's namespace")
	}
	var mutating *admissionregistrationv1.MutatingWebhookConfiguration
	var validating *admissionregistrationv1.ValidatingWebhookConfiguration
	for _, w := range r.webhooks {
		common := commonWebhook(w, opts)
		if w.Type == TypeMutating {
			if mutating == nil {
				mutating = &admissionregistrationv1.MutatingWebhookConfiguration{
					TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
					ObjectMeta: metav1.ObjectMeta{Name: opts.Name},
				}
			}
			reinvocation := w.ReinvocationPolicy
			if reinvocation == "" {
				reinvocation = admissionregistrationv1.NeverReinvocationPolicy
			}
			mutating.Webhooks = append(mutating.Webhooks, admissionregistrationv1.MutatingWebhook{
				Name: common.Name, ClientConfig: common.ClientConfig, Rules: common.Rules,
				FailurePolicy: common.FailurePolicy, MatchPolicy: common.MatchPolicy,
				NamespaceSelector: common.NamespaceSelector, ObjectSelector: common.ObjectSelector,
				SideEffects: common.SideEffects, TimeoutSeconds: common.TimeoutSeconds,
				AdmissionReviewVersions: common.AdmissionReviewVersions, ReinvocationPolicy: &reinvocation,
				MatchConditions: common.MatchConditions,
			})
			continue
		}
		if validating == nil {
			validating = &admissionregistrationv1.ValidatingWebhookConfiguration{
				TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
				ObjectMeta: metav1.ObjectMeta{Name: opts.Name},
			}
		}
		validating.Webhooks = append(validating.Webhooks, common)
	}
	return mutating, validating, nil
}

// commonWebhook builds the fields both configuration types share.
func commonWebhook(w Webhook, opts ConfigOptions) admissionregistrationv1.ValidatingWebhook {
	client := admissionregistrationv1.WebhookClientConfig{CABundle: opts.CABundle}
	if opts.Service != "" {
		port, path := opts.servicePort(), w.Path
		client.Service = &admissionregistrationv1.ServiceReference{Name: opts.Service, Namespace: opts.Namespace, Port: &port, Path: &path}
	} else {
		url := opts.urlOf(w.Path)
		client.URL = &url
	}
	failure := orDefault(w.FailurePolicy, admissionregistrationv1.Fail)
	matchPolicy := orDefault(w.MatchPolicy, admissionregistrationv1.Equivalent)
	sideEffects := orDefault(w.SideEffects, admissionregistrationv1.SideEffectClassNone)
	timeout := orDefault(w.TimeoutSeconds, DefaultTimeoutSeconds)
	objectSelector := &metav1.LabelSelector{}
	if w.ObjectSelector != nil {
		objectSelector = w.ObjectSelector.DeepCopy()
	}
	return admissionregistrationv1.ValidatingWebhook{
		Name:                    w.Name,
		ClientConfig:            client,
		Rules:                   w.rules(),
		FailurePolicy:           &failure,
		MatchPolicy:             &matchPolicy,
		NamespaceSelector:       namespaceSelector(w, opts),
		ObjectSelector:          objectSelector,
		SideEffects:             &sideEffects,
		TimeoutSeconds:          &timeout,
		AdmissionReviewVersions: []string{"v1", "v1beta1"},
		MatchConditions:         slices.Clone(w.MatchConditions),
	}
}

// namespaceSelector exempts kube-system, the server's own namespace unless it serves it, the
// exempt namespaces and the namespaces at or below the server's runlevel; what the webhook's
// own NamespaceSelector says is added to that, so it can only narrow it.
func namespaceSelector(w Webhook, opts ConfigOptions) *metav1.LabelSelector {
	exempt := map[string]bool{"kube-system": true}
	if opts.Namespace != "" && !opts.ServeOwnNamespace {
		exempt[opts.Namespace] = true
	}
	for _, ns := range opts.ExemptNamespaces {
		exempt[ns] = true
	}
	exemptList := make([]string, 0, len(exempt))
	for ns := range exempt {
		exemptList = append(exemptList, ns)
	}
	sort.Strings(exemptList)
	runlevel := opts.Runlevel
	if runlevel <= 0 {
		runlevel = DefaultRunlevel
	}
	var exemptLevels []string
	for level := 0; level <= runlevel; level++ {
		exemptLevels = append(exemptLevels, strconv.Itoa(level))
	}
	selector := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: exemptList},
		{Key: RunlevelLabel, Operator: metav1.LabelSelectorOpNotIn, Values: exemptLevels},
	}}
	if own := w.NamespaceSelector; own != nil {
		own = own.DeepCopy()
		selector.MatchLabels = own.MatchLabels
		selector.MatchExpressions = append(selector.MatchExpressions, own.MatchExpressions...)
	}
	return selector
}

// orDefault is v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// ConfigurationsYAML renders Configurations as a multi-document YAML stream, ready for kubectl apply.
func (r *Registry) ConfigurationsYAML(opts ConfigOptions) ([]byte, error) {
	m, v, err := r.Configurations(opts)
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	for _, obj := range []any{m, v} {
		if reflect.ValueOf(obj).IsNil() {
			continue
		}
		doc, err := yaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("encoding webhook configuration: %w", err)
		}
		docs = append(docs, doc)
	}
	return bytes.Join(docs, []byte("---\n")), nil
}
