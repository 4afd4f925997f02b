package dispatch

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// hook is one webhook of a configuration, with what the dispatcher needs precomputed: parsed
// selectors and compiled match conditions. Both configuration types become hooks.
type hook struct {
	// uid identifies the hook for reinvocation: "<configuration>/<webhook>/<n>", n counting
	// earlier webhooks of the same name in the configuration, as the apiserver does.
	uid           string
	configuration string
	name          string
	mutating      bool

	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	reinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
	clientConfig            admissionregistrationv1.WebhookClientConfig

	namespaceSelector, objectSelector       labels.Selector
	namespaceSelectorErr, objectSelectorErr error

	conditions ConditionMatcher // nil without matchConditions

	// The HTTP client and URL, resolved on the first call: a configuration does not change, so
	// neither do they (nor an error building them).
	clientOnce sync.Once
	httpClient *http.Client
	target     *url.URL
	clientErr  error
}

// client returns the webhook's HTTP client and URL, from cache (shared by webhooks with the same
// client configuration).
func (h *hook) client(cache *clientCache) (*http.Client, *url.URL, error) {
	h.clientOnce.Do(func() { h.httpClient, h.target, h.clientErr = cache.client(h.clientConfig) })
	return h.httpClient, h.target, h.clientErr
}

// ignoresFailures reports failurePolicy Ignore; nil means Fail, as in the apiserver.
func (h *hook) ignoresFailures() bool {
	return h.failurePolicy != nil && *h.failurePolicy == admissionregistrationv1.Ignore
}

func (h *hook) reinvokable() bool {
	return h.reinvocationPolicy != nil && *h.reinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy
}

func (h *hook) typeLabel() string {
	if h.mutating {
		return "admit"
	}
	return "validating"
}

func parseSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	// A nil selector matches nothing in the apiserver; configurations are defaulted to {} before
	// they get here, so nil only reaches this point from typed objects that skipped defaulting.
	return metav1.LabelSelectorAsSelector(s)
}

// newHooks flattens configurations into hooks in the apiserver's order: configurations sorted
// by name, webhooks in list order.
func newHooks(mutating []*admissionregistrationv1.MutatingWebhookConfiguration, validating []*admissionregistrationv1.ValidatingWebhookConfiguration, compile ConditionCompiler) ([]*hook, []*hook, error) {
	mutating = append([]*admissionregistrationv1.MutatingWebhookConfiguration(nil), mutating...)
	sort.SliceStable(mutating, func(i, j int) bool { return mutating[i].Name < mutating[j].Name })
	validating = append([]*admissionregistrationv1.ValidatingWebhookConfiguration(nil), validating...)
	sort.SliceStable(validating, func(i, j int) bool { return validating[i].Name < validating[j].Name })

	var mhooks, vhooks []*hook
	for _, c := range mutating {
		seen := map[string]int{}
		for _, w := range c.Webhooks {
			h := &hook{
				uid: fmt.Sprintf("%s/%s/%d", c.Name, w.Name, seen[w.Name]), configuration: c.Name, name: w.Name, mutating: true,
				rules: w.Rules, failurePolicy: w.FailurePolicy, matchPolicy: w.MatchPolicy, sideEffects: w.SideEffects,
				timeoutSeconds: w.TimeoutSeconds, admissionReviewVersions: w.AdmissionReviewVersions,
				reinvocationPolicy: w.ReinvocationPolicy, clientConfig: w.ClientConfig,
			}
			seen[w.Name]++
			h.namespaceSelector, h.namespaceSelectorErr = parseSelector(w.NamespaceSelector)
			h.objectSelector, h.objectSelectorErr = parseSelector(w.ObjectSelector)
			if err := h.compileConditions(w.MatchConditions, compile); err != nil {
				return nil, nil, err
			}
			mhooks = append(mhooks, h)
		}
	}
	for _, c := range validating {
		seen := map[string]int{}
		for _, w := range c.Webhooks {
			h := &hook{
				uid: fmt.Sprintf("%s/%s/%d", c.Name, w.Name, seen[w.Name]), configuration: c.Name, name: w.Name,
				rules: w.Rules, failurePolicy: w.FailurePolicy, matchPolicy: w.MatchPolicy, sideEffects: w.SideEffects,
				timeoutSeconds: w.TimeoutSeconds, admissionReviewVersions: w.AdmissionReviewVersions, clientConfig: w.ClientConfig,
			}
			seen[w.Name]++
			h.namespaceSelector, h.namespaceSelectorErr = parseSelector(w.NamespaceSelector)
			h.objectSelector, h.objectSelectorErr = parseSelector(w.ObjectSelector)
			if err := h.compileConditions(w.MatchConditions, compile); err != nil {
				return nil, nil, err
			}
			vhooks = append(vhooks, h)
		}
	}
	return mhooks, vhooks, nil
}

func (h *hook) compileConditions(conditions []admissionregistrationv1.MatchCondition, compile ConditionCompiler) error {
	if len(conditions) == 0 {
		return nil
	}
	if compile == nil {
		return fmt.Errorf("webhook %q of configuration %q has matchConditions but no condition compiler is configured", h.name, h.configuration)
	}
	m, err := compile(conditions, h.failurePolicy)
	if err != nil {
		return fmt.Errorf("webhook %q of configuration %q: compiling matchConditions: %w", h.name, h.configuration, err)
	}
	h.conditions = m
	return nil
}
