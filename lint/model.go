package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/matchconditions"
)

// configuration is a webhook configuration as the checks see it: mutating and validating ones
// alike.
type configuration struct {
	kind        string
	name        string
	annotations map[string]string
	source      config.Source
	webhooks    []*webhook
	// disabled holds the IDs of the rules the configuration's DisableAnnotation turns off.
	disabled map[string]bool
	// validate and warnings run the apiserver's create-time validation and warnings.
	validate func() field.ErrorList
	warnings func() []string
}

// display names the configuration in messages about other configurations.
func (c *configuration) display() string {
	return fmt.Sprintf("%s %q", c.kind, c.name)
}

// webhook is one webhook of a configuration. spec holds the fields both webhook types share;
// a mutating webhook's reinvocationPolicy is kept apart.
type webhook struct {
	config       *configuration
	index        int
	mutating     bool
	spec         admissionregistrationv1.ValidatingWebhook
	reinvocation admissionregistrationv1.ReinvocationPolicyType
	// namespaceSelector and objectSelector are nil when invalid (rule A01 reports them): the
	// scope checks skip such a webhook rather than guess.
	namespaceSelector labels.Selector
	objectSelector    labels.Selector
	// conditions is nil when the webhook has no matchConditions or they do not compile.
	conditions *matchconditions.Matcher
	// backend is the in-cluster server of a service clientConfig; nil for a URL.
	backend *backend
}

// webhookAt returns the webhook a field path starting with "webhooks[i]" is in, or nil.
func (c *configuration) webhookAt(path string) *webhook {
	if i := webhookIndex(path); i >= 0 && i < len(c.webhooks) {
		return c.webhooks[i]
	}
	return nil
}

func (w *webhook) path() *field.Path { return field.NewPath("webhooks").Index(w.index) }

// failClosed is true when a call that fails rejects the request.
func (w *webhook) failClosed() bool {
	return w.spec.FailurePolicy == nil || *w.spec.FailurePolicy == admissionregistrationv1.Fail
}

func (w *webhook) timeoutSeconds() int32 {
	if w.spec.TimeoutSeconds == nil {
		return 10
	}
	return *w.spec.TimeoutSeconds
}

// backend is the Service a webhook calls and what the input says about it.
type backend struct {
	namespace, service string
	port               int32
	// svc is the Service, when the input has it.
	svc *corev1.Service
	// workloads are the input's workloads whose pods svc selects.
	workloads []*workload
	// podLabels are the labels the server's pods carry, as far as the input tells: those of a
	// selected workload's template, else the Service's selector, else none.
	podLabels labels.Set
}

// describePods says what lint knows of the server's pods' labels.
func (b *backend) describePods() string {
	if b.svc == nil {
		return "its pods' labels are unknown: the input lacks the Service"
	}
	return "pods labelled " + describeLabels(b.podLabels)
}

// host is the name the apiserver connects to and verifies the serving certificate against.
func (b *backend) host() string { return b.service + "." + b.namespace + ".svc" }

func (b *backend) key() namespacedName { return namespacedName{b.namespace, b.service} }

// newBackend resolves a service clientConfig against the inventory.
func newBackend(ref *admissionregistrationv1.ServiceReference, inv *inventory) *backend {
	b := &backend{namespace: ref.Namespace, service: ref.Name, port: 443, podLabels: labels.Set{}}
	if ref.Port != nil {
		b.port = *ref.Port
	}
	b.svc, _ = lookup(inv.services, b.namespace, b.service)
	if b.svc == nil {
		return b
	}
	b.workloads = inv.selectedWorkloads(b.svc, b.namespace)
	switch {
	case len(b.workloads) > 0:
		b.podLabels = b.workloads[0].templateLabels
	case len(b.svc.Spec.Selector) > 0:
		b.podLabels = labels.Set(b.svc.Spec.Selector)
	}
	return b
}

// buildConfigurations turns the set's configurations into the checks' view, ordered by file
// name, then position in the file. index resolves the rule names of DisableAnnotation.
func buildConfigurations(set *config.Set, inv *inventory, index map[string]string) ([]*configuration, error) {
	var out []*configuration
	for _, m := range set.Mutating {
		c := &configuration{
			kind: "MutatingWebhookConfiguration", name: m.Config.Name, annotations: m.Config.Annotations, source: m.Source,
			validate: func() field.ErrorList { return config.ValidateMutating(m.Config) },
			warnings: func() []string { return config.WarningsMutating(m.Config) },
		}
		for i, w := range m.Config.Webhooks {
			reinvocation := admissionregistrationv1.NeverReinvocationPolicy
			if w.ReinvocationPolicy != nil {
				reinvocation = *w.ReinvocationPolicy
			}
			spec := admissionregistrationv1.ValidatingWebhook{
				Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
				MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
				SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions,
				MatchConditions: w.MatchConditions,
			}
			c.webhooks = append(c.webhooks, newWebhook(c, i, true, spec, reinvocation, inv))
		}
		out = append(out, c)
	}
	for _, v := range set.Validating {
		c := &configuration{
			kind: "ValidatingWebhookConfiguration", name: v.Config.Name, annotations: v.Config.Annotations, source: v.Source,
			validate: func() field.ErrorList { return config.ValidateValidating(v.Config) },
			warnings: func() []string { return config.WarningsValidating(v.Config) },
		}
		for i, w := range v.Config.Webhooks {
			c.webhooks = append(c.webhooks, newWebhook(c, i, false, w, "", inv))
		}
		out = append(out, c)
	}
	// Input order across both kinds: file, then position in the file.
	slices.SortStableFunc(out, func(x, y *configuration) int {
		return cmp.Or(strings.Compare(x.source.File, y.source.File), cmp.Compare(x.source.Document, y.source.Document), cmp.Compare(x.source.Item, y.source.Item))
	})
	if err := applyDisableAnnotations(out, index); err != nil {
		return nil, err
	}
	return out, nil
}

// applyDisableAnnotations reads each configuration's DisableAnnotation.
func applyDisableAnnotations(configs []*configuration, index map[string]string) error {
	for _, c := range configs {
		value, ok := c.annotations[DisableAnnotation]
		if !ok {
			continue
		}
		ids, unknown := resolveRuleList(index, []string{value})
		if len(unknown) > 0 {
			return fmt.Errorf("%s: %s: %w", c.source, c.display(), errUnknownRules("annotation "+DisableAnnotation, unknown))
		}
		c.disabled = ids
	}
	return nil
}

func newWebhook(c *configuration, index int, mutating bool, spec admissionregistrationv1.ValidatingWebhook, reinvocation admissionregistrationv1.ReinvocationPolicyType, inv *inventory) *webhook {
	w := &webhook{config: c, index: index, mutating: mutating, spec: spec, reinvocation: reinvocation}
	w.namespaceSelector = selectorOrNil(spec.NamespaceSelector)
	w.objectSelector = selectorOrNil(spec.ObjectSelector)
	if len(spec.MatchConditions) > 0 {
		// A compile error is rule A01's to report; without conditions the webhook is taken to
		// match more, never less, which errs on the side of reporting.
		w.conditions, _ = matchconditions.Compile(spec.MatchConditions)
	}
	if spec.ClientConfig.Service != nil {
		w.backend = newBackend(spec.ClientConfig.Service, inv)
	}
	return w
}

// selectorOrNil converts a webhook's selector; nil (unset, which loading defaults away) matches
// everything, an invalid one is nil.
func selectorOrNil(s *metav1.LabelSelector) labels.Selector {
	if s == nil {
		return labels.Everything()
	}
	selector, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return nil
	}
	return selector
}

// runlevel reads a namespace's runlevel from the first of keys its labels have. ok is false
// when none is set or the value is not a non-negative integer.
func runlevel(set labels.Set, keys []string) (level int, key string, ok bool) {
	for _, key := range keys {
		if value, found := set[key]; found {
			level, err := parseRunlevel(value)
			return level, key, err == nil
		}
	}
	return 0, "", false
}

func parseRunlevel(value string) (int, error) {
	level, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || level < 0 {
		return 0, fmt.Errorf("%q is not a runlevel: want a non-negative integer", value)
	}
	return level, nil
}
