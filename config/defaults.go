package config

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SetDefaultsMutating fills in what kube-apiserver defaults in an
// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration: failurePolicy Fail, matchPolicy
// Equivalent, namespaceSelector and objectSelector {} (match everything), timeoutSeconds 10,
// reinvocationPolicy Never, rules' scope "*" and service port 443. Fields already set are kept.
//
// sideEffects and admissionReviewVersions have no default in v1: they are required.
func SetDefaultsMutating(c *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		setCommonDefaults(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, w.ClientConfig.Service)
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptr(admissionregistrationv1.NeverReinvocationPolicy)
		}
	}
}

// SetDefaultsValidating fills in what kube-apiserver defaults in an
// admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration: failurePolicy Fail,
// matchPolicy Equivalent, namespaceSelector and objectSelector {}, timeoutSeconds 10, rules'
// scope "*" and service port 443. Fields already set are kept.
func SetDefaultsValidating(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		setCommonDefaults(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, w.ClientConfig.Service)
	}
}

// setCommonDefaults defaults the fields both webhook types share. The dispatcher depends on it:
// a nil selector matches nothing, while the default {} matches everything.
func setCommonDefaults(
	failurePolicy **admissionregistrationv1.FailurePolicyType,
	matchPolicy **admissionregistrationv1.MatchPolicyType,
	namespaceSelector, objectSelector **metav1.LabelSelector,
	timeoutSeconds **int32,
	rules []admissionregistrationv1.RuleWithOperations,
	service *admissionregistrationv1.ServiceReference,
) {
	if *failurePolicy == nil {
		*failurePolicy = ptr(admissionregistrationv1.Fail)
	}
	if *matchPolicy == nil {
		*matchPolicy = ptr(admissionregistrationv1.Equivalent)
	}
	if *namespaceSelector == nil {
		*namespaceSelector = &metav1.LabelSelector{}
	}
	if *objectSelector == nil {
		*objectSelector = &metav1.LabelSelector{}
	}
	if *timeoutSeconds == nil {
		*timeoutSeconds = ptr(int32(10))
	}
	for i := range rules {
		if rules[i].Scope == nil {
			rules[i].Scope = ptr(admissionregistrationv1.AllScopes)
		}
	}
	if service != nil && service.Port == nil {
		service.Port = ptr(int32(443))
	}
}

func ptr[T any](v T) *T { return &v }
