package config

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatingConfig shortens the table below.
type validatingConfig = admissionregistrationv1.ValidatingWebhookConfiguration

func validValidating() *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-policy"},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{validWebhook("pods.example.com")},
	}
}

func validWebhook(name string) admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name: name,
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}},
		ClientConfig: admissionregistrationv1.WebhookClientConfig{
			Service: &admissionregistrationv1.ServiceReference{Namespace: "webhooks", Name: "policy", Path: ptr("/validate")},
		},
		SideEffects:             ptr(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

// toMutating copies a validating configuration into a mutating one, to check that both kinds
// are validated alike.
func toMutating(v *validatingConfig) *admissionregistrationv1.MutatingWebhookConfiguration {
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: v.ObjectMeta}
	for _, w := range v.Webhooks {
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
			MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
			SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions,
			MatchConditions: w.MatchConditions,
		})
	}
	return m
}

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}

const (
	dns1123SubdomainRule = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	labelValueRule       = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

func TestValidate(t *testing.T) {
	rule := func(c *validatingConfig) *admissionregistrationv1.RuleWithOperations {
		return &c.Webhooks[0].Rules[0]
	}
	resources := func(r ...string) func(*validatingConfig) {
		return func(c *validatingConfig) { rule(c).Resources = r }
	}
	url := func(u string) func(*validatingConfig) {
		return func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &u}
		}
	}
	servicePath := func(p string) func(*validatingConfig) {
		return func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig.Service.Path = &p
		}
	}
	reviewVersions := func(v ...string) func(*validatingConfig) {
		return func(c *validatingConfig) {
			c.Webhooks[0].AdmissionReviewVersions = v
		}
	}
	tests := []struct {
		name   string
		modify func(*validatingConfig)
		want   []string
	}{
		{name: "valid", modify: func(*validatingConfig) {}},

		// metadata
		{name: "no name", modify: func(c *validatingConfig) { c.Name = "" },
			want: []string{"metadata.name: Required value: name or generateName is required"}},
		{name: "name not a DNS subdomain", modify: func(c *validatingConfig) { c.Name = "Pod_Policy" },
			want: []string{`metadata.name: Invalid value: "Pod_Policy": ` + dns1123SubdomainRule}},
		// The apiserver clears a cluster-scoped object's namespace before validating it (the e2e
		// suite's TestConfigurationNamespaceIsCleared records it).
		{name: "namespace on a cluster-scoped object", modify: func(c *validatingConfig) { c.Namespace = "default" }},

		// webhook names
		{name: "webhook without name", modify: func(c *validatingConfig) { c.Webhooks[0].Name = "" },
			want: []string{"webhooks[0].name: Required value"}},
		{name: "webhook name with two segments", modify: func(c *validatingConfig) { c.Webhooks[0].Name = "pods.example" },
			want: []string{`webhooks[0].name: Invalid value: "pods.example": should be a domain with at least three segments separated by dots`}},
		{name: "webhook name not a DNS subdomain", modify: func(c *validatingConfig) {
			c.Webhooks[0].Name = "Pods.example.com"
		},
			want: []string{`webhooks[0].name: Invalid value: "Pods.example.com": ` + dns1123SubdomainRule}},
		{name: "duplicate webhook names", modify: func(c *validatingConfig) {
			c.Webhooks = append(c.Webhooks, validWebhook("other.example.com"), validWebhook("pods.example.com"))
		}, want: []string{`webhooks[2].name: Duplicate value: "pods.example.com"`}},

		// rules: operations
		{name: "no operations", modify: func(c *validatingConfig) { rule(c).Operations = nil },
			want: []string{"webhooks[0].rules[0].operations: Required value"}},
		{name: "'*' with other operations", modify: func(c *validatingConfig) {
			rule(c).Operations = []admissionregistrationv1.OperationType{"*", "CREATE"}
		}, want: []string{`webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`}},
		{name: "unknown operation", modify: func(c *validatingConfig) {
			rule(c).Operations = []admissionregistrationv1.OperationType{"CREATE", "PATCH"}
		}, want: []string{`webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`}},

		// rules: groups and versions
		{name: "no apiGroups", modify: func(c *validatingConfig) { rule(c).APIGroups = nil },
			want: []string{"webhooks[0].rules[0].apiGroups: Required value"}},
		{name: "'*' with other apiGroups", modify: func(c *validatingConfig) {
			rule(c).APIGroups = []string{"apps", "*"}
		},
			want: []string{`webhooks[0].rules[0].apiGroups: Invalid value: ["apps","*"]: if '*' is present, must not specify other API groups`}},
		{name: "no apiVersions", modify: func(c *validatingConfig) { rule(c).APIVersions = []string{} },
			want: []string{"webhooks[0].rules[0].apiVersions: Required value"}},
		{name: "'*' with other apiVersions", modify: func(c *validatingConfig) {
			rule(c).APIVersions = []string{"*", "v1"}
		},
			want: []string{`webhooks[0].rules[0].apiVersions: Invalid value: ["*","v1"]: if '*' is present, must not specify other API versions`}},
		{name: "empty apiVersion", modify: func(c *validatingConfig) {
			rule(c).APIVersions = []string{"v1", ""}
		},
			want: []string{"webhooks[0].rules[0].apiVersions[1]: Required value"}},

		// rules: resources
		{name: "no resources", modify: resources(),
			want: []string{"webhooks[0].rules[0].resources: Required value"}},
		{name: "empty resource", modify: resources("pods", ""),
			want: []string{"webhooks[0].rules[0].resources[1]: Required value"}},
		{name: "'*/*' with other resources", modify: resources("*/*", "pods"),
			want: []string{`webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`}},
		{name: "'*' with resources without subresources", modify: resources("*", "pods"),
			want: []string{`webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources`}},
		{name: "'*' with subresources", modify: resources("*", "pods/status", "*/scale")},
		// The apiserver only looks at the last entry without a subresource: "*" after a named
		// resource is accepted.
		{name: "'*' after a named resource", modify: resources("pods", "*")},
		{name: "'x/*' then 'x/y'", modify: resources("pods/*", "pods/status"),
			want: []string{`webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`}},
		{name: "'*/y' then 'x/y'", modify: resources("*/status", "pods/status"),
			want: []string{`webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if '*/status' is present, must not specify pods/status`}},
		{name: "'x/y' then 'x/*' is accepted", modify: resources("pods/status", "pods/*")},

		// rules: scope
		{name: "unknown scope", modify: func(c *validatingConfig) {
			rule(c).Scope = ptr(admissionregistrationv1.ScopeType("Global"))
		}, want: []string{`webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"`}},

		// policies
		{name: "unknown failurePolicy", modify: func(c *validatingConfig) {
			c.Webhooks[0].FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("Open"))
		}, want: []string{`webhooks[0].failurePolicy: Unsupported value: "Open": supported values: "Fail", "Ignore"`}},
		{name: "unknown matchPolicy", modify: func(c *validatingConfig) {
			c.Webhooks[0].MatchPolicy = ptr(admissionregistrationv1.MatchPolicyType("Fuzzy"))
		}, want: []string{`webhooks[0].matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"`}},

		// sideEffects
		{name: "no sideEffects", modify: func(c *validatingConfig) { c.Webhooks[0].SideEffects = nil },
			want: []string{"webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"}},
		{name: "sideEffects Some on create", modify: func(c *validatingConfig) {
			c.Webhooks[0].SideEffects = ptr(admissionregistrationv1.SideEffectClassSome)
		}, want: []string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`}},
		{name: "sideEffects Unknown on create", modify: func(c *validatingConfig) {
			c.Webhooks[0].SideEffects = ptr(admissionregistrationv1.SideEffectClassUnknown)
		}, want: []string{`webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"`}},
		{name: "sideEffects NoneOnDryRun", modify: func(c *validatingConfig) {
			c.Webhooks[0].SideEffects = ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun)
		}},

		// timeoutSeconds
		{name: "timeout 31", modify: func(c *validatingConfig) {
			c.Webhooks[0].TimeoutSeconds = ptr(int32(31))
		},
			want: []string{"webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"}},
		{name: "timeout 0", modify: func(c *validatingConfig) {
			c.Webhooks[0].TimeoutSeconds = ptr(int32(0))
		},
			want: []string{"webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds"}},
		{name: "timeout 1 and 30", modify: func(c *validatingConfig) {
			c.Webhooks = append(c.Webhooks, validWebhook("other.example.com"))
			c.Webhooks[0].TimeoutSeconds, c.Webhooks[1].TimeoutSeconds = ptr(int32(1)), ptr(int32(30))
		}},

		// selectors
		{name: "namespaceSelector with an unknown operator", modify: func(c *validatingConfig) {
			c.Webhooks[0].NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "runlevel", Operator: "Like", Values: []string{"0"}}}}
		}, want: []string{`webhooks[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Like": not a valid selector operator`}},
		{name: "namespaceSelector NotIn without values", modify: func(c *validatingConfig) {
			c.Webhooks[0].NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "runlevel", Operator: metav1.LabelSelectorOpNotIn}}}
		}, want: []string{"webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{name: "objectSelector with an invalid label value", modify: func(c *validatingConfig) {
			c.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "not valid"}}
		}, want: []string{`webhooks[0].objectSelector.matchLabels: Invalid value: "not valid": ` + labelValueRule}},
		{name: "objectSelector expression with an invalid value", modify: func(c *validatingConfig) {
			c.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"-web"}}}}
		}, want: []string{`webhooks[0].objectSelector.matchExpressions[0].values[0]: Invalid value: "-web": ` + labelValueRule}},

		// clientConfig
		{name: "neither url nor service", modify: func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{}
		}, want: []string{"webhooks[0].clientConfig: Required value: exactly one of url or service is required"}},
		{name: "both url and service", modify: func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig.URL = ptr("https://example.com/validate")
		}, want: []string{"webhooks[0].clientConfig: Required value: exactly one of url or service is required"}},
		{name: "url", modify: url("https://127.0.0.1:8443/validate")},
		{name: "url not https", modify: url("http://example.com/validate"),
			want: []string{`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`}},
		{name: "url without host", modify: url("https:///validate"),
			want: []string{`webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]`}},
		{name: "url with user information", modify: url("https://admin:secret@example.com/validate"),
			want: []string{`webhooks[0].clientConfig.url: Invalid value: "admin:secret": user information is not permitted in the URL`}},
		{name: "url with a fragment", modify: url("https://example.com/validate#pods"),
			want: []string{`webhooks[0].clientConfig.url: Invalid value: "pods": fragments are not permitted in the URL`}},
		{name: "url with a query", modify: url("https://example.com/validate?kind=pods"),
			want: []string{`webhooks[0].clientConfig.url: Invalid value: "kind=pods": query parameters are not permitted in the URL`}},
		{name: "url that does not parse", modify: url("https://exa mple.com/"),
			want: []string{`webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://exa mple.com/": invalid character " " in host name; desired format: https://host[/path]`}},
		{name: "url with several problems", modify: url("ftp://user@/#x"),
			want: []string{
				`webhooks[0].clientConfig.url: Invalid value: "ftp": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
				`webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]`,
				`webhooks[0].clientConfig.url: Invalid value: "user": user information is not permitted in the URL`,
				`webhooks[0].clientConfig.url: Invalid value: "x": fragments are not permitted in the URL`,
			}},
		// The apiserver swaps the service's name and namespace when it validates them, so each
		// is reported under the other's field.
		{name: "service without namespace", modify: func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig.Service.Namespace = ""
		}, want: []string{"webhooks[0].clientConfig.service.name: Required value"}},
		{name: "service without name", modify: func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig.Service.Name = ""
		}, want: []string{"webhooks[0].clientConfig.service.namespace: Required value"}},
		{name: "service port 0", modify: func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig.Service.Port = ptr(int32(0))
		}, want: []string{"webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive"}},
		{name: "service port 65536", modify: func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig.Service.Port = ptr(int32(65536))
		}, want: []string{"webhooks[0].clientConfig.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive"}},
		{name: "service without path", modify: func(c *validatingConfig) {
			c.Webhooks[0].ClientConfig.Service.Path = nil
		}},
		{name: "service path /", modify: servicePath("/")},
		{name: "service path empty", modify: servicePath("")},
		{name: "service path with a trailing slash", modify: servicePath("/validate/pods/")},
		{name: "service path without leading slash", modify: servicePath("validate"),
			want: []string{`webhooks[0].clientConfig.service.path: Invalid value: "validate": must start with a '/'`}},
		{name: "service path //", modify: servicePath("//"),
			want: []string{`webhooks[0].clientConfig.service.path: Invalid value: "//": segment[0] may not be empty`}},
		{name: "service path with an empty segment", modify: servicePath("/validate//pods"),
			want: []string{`webhooks[0].clientConfig.service.path: Invalid value: "/validate//pods": segment[1] may not be empty`}},
		{name: "service path segment not a DNS subdomain", modify: servicePath("/Validate"),
			want: []string{`webhooks[0].clientConfig.service.path: Invalid value: "/Validate": segment[0]: ` + dns1123SubdomainRule}},

		// admissionReviewVersions
		{name: "no admissionReviewVersions", modify: reviewVersions(),
			want: []string{"webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"}},
		{name: "duplicate admissionReviewVersion", modify: reviewVersions("v1", "v1"),
			want: []string{`webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version`}},
		{name: "no known admissionReviewVersion", modify: reviewVersions("v2"),
			want: []string{`webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`}},
		{name: "admissionReviewVersion not a DNS label", modify: reviewVersions("V2", "v1beta1"),
			want: []string{`webhooks[0].admissionReviewVersions[0]: Invalid value: "V2": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},

		// matchConditions
		{name: "valid matchConditions", modify: func(c *validatingConfig) {
			c.Webhooks[0].MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "not-skip-me", Expression: "object.metadata.name != 'skip-me'"}}
		}},
		{name: "matchCondition that does not compile", modify: func(c *validatingConfig) {
			c.Webhooks[0].MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "bad", Expression: "undeclared == 1"}}
		}, want: []string{"webhooks[0].matchConditions[0].expression: Invalid value: \"undeclared == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'undeclared' (in container '')\n | undeclared == 1\n | ^"}},
		{name: "matchConditions without name and with a duplicate", modify: func(c *validatingConfig) {
			c.Webhooks[0].MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "", Expression: "true"}, {Name: "a", Expression: "true"}, {Name: "a", Expression: "true"}}
		}, want: []string{"webhooks[0].matchConditions[0].name: Required value", `webhooks[0].matchConditions[2].name: Duplicate value: "a"`}},

		// order: the apiserver reports a webhook's errors field by field, then its
		// admissionReviewVersions, then a duplicate name.
		{name: "errors in the apiserver's order", modify: func(c *validatingConfig) {
			c.Webhooks = append(c.Webhooks, validWebhook("pods.example.com"))
			w := &c.Webhooks[1]
			w.AdmissionReviewVersions = nil
			w.ClientConfig.Service.Path = ptr("x")
			w.TimeoutSeconds = ptr(int32(40))
			w.SideEffects = nil
			w.Rules[0].Scope = ptr(admissionregistrationv1.ScopeType("Global"))
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "x", Expression: ""}}
		}, want: []string{
			`webhooks[1].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"`,
			"webhooks[1].sideEffects: Required value: must specify one of None, NoneOnDryRun",
			"webhooks[1].timeoutSeconds: Invalid value: 40: the timeout value must be between 1 and 30 seconds",
			`webhooks[1].clientConfig.service.path: Invalid value: "x": must start with a '/'`,
			`webhooks[1].clientConfig.service.path: Invalid value: "x": segment[0] may not be empty`,
			"webhooks[1].matchConditions[0].expression: Required value",
			"webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
			`webhooks[1].name: Duplicate value: "pods.example.com"`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := validValidating()
			tc.modify(c)
			if diff := cmp.Diff(tc.want, errorStrings(ValidateValidating(c))); diff != "" {
				t.Errorf("ValidateValidating (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, errorStrings(ValidateMutating(toMutating(c)))); diff != "" {
				t.Errorf("ValidateMutating (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateMutatingReinvocationPolicy(t *testing.T) {
	c := toMutating(validValidating())
	c.Webhooks[0].ReinvocationPolicy = ptr(admissionregistrationv1.ReinvocationPolicyType("Always"))
	want := []string{`webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`}
	if diff := cmp.Diff(want, errorStrings(ValidateMutating(c))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	c.Webhooks[0].ReinvocationPolicy = ptr(admissionregistrationv1.IfNeededReinvocationPolicy)
	if errs := ValidateMutating(c); len(errs) != 0 {
		t.Errorf("IfNeeded: unexpected errors %v", errs)
	}
}

func TestValidateAggregate(t *testing.T) {
	c := validValidating()
	c.Webhooks[0].TimeoutSeconds = ptr(int32(31))
	c.Webhooks[0].Name = "pods"
	want := `[webhooks[0].name: Invalid value: "pods": should be a domain with at least three segments separated by dots, webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds]`
	if diff := cmp.Diff(want, ValidateValidating(c).ToAggregate().Error()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidateDoesNotModify(t *testing.T) {
	c := validValidating()
	before := c.DeepCopy()
	ValidateValidating(c)
	if diff := cmp.Diff(before, c); diff != "" {
		t.Errorf("ValidateValidating modified its argument (-before +after):\n%s", diff)
	}
	m := toMutating(validValidating())
	mBefore := m.DeepCopy()
	ValidateMutating(m)
	if diff := cmp.Diff(mBefore, m); diff != "" {
		t.Errorf("ValidateMutating modified its argument (-before +after):\n%s", diff)
	}
}

func TestValidateMatchConditionLimit(t *testing.T) {
	for _, tc := range []struct {
		count int
		want  []string
	}{
		{count: 64},
		{count: 65, want: []string{"webhooks[0].matchConditions: Too many: 65: must have at most 64 items"}},
	} {
		c := validValidating()
		for i := 0; i < tc.count; i++ {
			c.Webhooks[0].MatchConditions = append(c.Webhooks[0].MatchConditions, admissionregistrationv1.MatchCondition{
				Name: fmt.Sprintf("c%d", i), Expression: "true",
			})
		}
		if diff := cmp.Diff(tc.want, errorStrings(ValidateValidating(c))); diff != "" {
			t.Errorf("%d conditions (-want +got):\n%s", tc.count, diff)
		}
	}
}
