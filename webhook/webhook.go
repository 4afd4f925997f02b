package webhook

import (
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Type is the kind of admission webhook.
type Type string

const (
	TypeMutating   Type = "mutating"
	TypeValidating Type = "validating"
)

// Webhook describes one admission webhook to serve and to declare in a webhook configuration:
// everything a webhook of a Mutating- or ValidatingWebhookConfiguration says except its client
// configuration, which ConfigOptions gives for all of them.
//
// Which requests reach it is said one of two ways:
//   - Kind and Resource (with Scope and Operations): one rule, for the kind the handler decodes;
//   - Rules, as in a configuration, for several groups, versions or resources. With Rules, Kind
//     is the one kind the handler decodes, or empty for a handler that takes any kind
//     (HandlerFunc, *unstructured.Unstructured, *metav1.PartialObjectMetadata).
//
// ObjectSelector, NamespaceSelector and MatchConditions narrow them further; the namespaces
// ConfigOptions exempts stay exempt whatever NamespaceSelector says.
type Webhook struct {
	// Name is the webhook's name in its configuration: a DNS name of at least three segments,
	// e.g. "pod-defaults.example.com".
	Name string
	// Type is TypeMutating or TypeValidating.
	Type Type
	// Kind is the object kind the webhook handles; requests for another kind are answered 400.
	// It may be left out when the handler's Go type says it: a Kubernetes API type, or a type
	// Scheme knows.
	Kind schema.GroupVersionKind
	// Scheme, when set, gives the kind of the handler's Go type, as controller-runtime reads it
	// from a manager's scheme: Kind defaults to it, and a Kind of another group, version or
	// name is refused. Without it, the kind of a type of your own is known by its name only.
	// Default: the Registry's (HTTPOptions.Scheme).
	Scheme *runtime.Scheme
	// Resource is the plural resource name of Kind, e.g. "pods", or one of its subresources,
	// "pods/ephemeralcontainers". For Kubernetes' own kinds it defaults to the kind's resource.
	Resource string
	// Scope of the resource: Namespaced, Cluster or "*" (the default).
	Scope admissionregistrationv1.ScopeType
	// Operations to intercept; default CREATE and UPDATE.
	Operations []admissionregistrationv1.OperationType
	// Rules replace Kind's generated rule: each with operations, API groups, versions,
	// resources and a scope. Resource, Scope and Operations must then be empty.
	Rules []admissionregistrationv1.RuleWithOperations
	// ObjectSelector sends the webhook only the objects whose labels it selects (the new object
	// on CREATE and UPDATE, the old one on DELETE); default every object.
	ObjectSelector *metav1.LabelSelector
	// NamespaceSelector narrows the namespaces the webhook sees beyond the exempt ones: its
	// labels and expressions are added to the generated ones, never replace them.
	NamespaceSelector *metav1.LabelSelector
	// MatchConditions are CEL expressions kube-apiserver evaluates before calling the webhook;
	// all must be true. Register compiles them with kube-apiserver's CEL environment and
	// refuses one that does not compile.
	MatchConditions []admissionregistrationv1.MatchCondition
	// MatchPolicy is Equivalent (the default: requests through another version of the
	// resource are converted to Kind's version) or Exact.
	MatchPolicy admissionregistrationv1.MatchPolicyType
	// ReinvocationPolicy of a mutating webhook: Never (the default) or IfNeeded, to be called
	// again when a later webhook changed the object.
	ReinvocationPolicy admissionregistrationv1.ReinvocationPolicyType
	// SideEffects is None (the default) or NoneOnDryRun for a webhook that changes something
	// outside the object and skips it on dry runs (Request.IsDryRun).
	SideEffects admissionregistrationv1.SideEffectClass
	// Path to serve; default the generated path (see Path), or one made of Name when Kind is
	// empty.
	Path string
	// Handler decides the requests, typically DefaultingHandler(...) or ValidatingHandler(...).
	Handler Handler
	// FailurePolicy declared in the configuration; default Fail.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// TimeoutSeconds declared in the configuration, 1 to 30; default DefaultTimeoutSeconds.
	TimeoutSeconds int32
}

// DefaultTimeoutSeconds is the timeout of a webhook that sets none: shorter than
// kube-apiserver's 10 s default, which admit lint flags on the paths every write takes; a webhook
// that needs longer says so.
const DefaultTimeoutSeconds = 5

// Path returns the path generated for a webhook of type t on gvk:
// "/mutate-<group>-<version>-<kind>" or "/validate-<group>-<version>-<kind>", the group's dots
// replaced by dashes and the kind in lower case. The core group ("") is written "core", so a Pod
// mutating webhook is served at "/mutate-core-v1-pod".
func Path(t Type, gvk schema.GroupVersionKind) string {
	group := gvk.Group
	if group == "" {
		group = "core"
	}
	return pathPrefix(t) + strings.ReplaceAll(group, ".", "-") + "-" + gvk.Version + "-" + strings.ToLower(gvk.Kind)
}

// namedPath is the path of a webhook without a kind: its name, dots as dashes.
func namedPath(t Type, name string) string {
	return pathPrefix(t) + strings.ReplaceAll(name, ".", "-")
}

func pathPrefix(t Type) string {
	if t == TypeMutating {
		return "/mutate-"
	}
	return "/validate-"
}

// MirrorPodAnnotation marks the API copy of a static pod, which the kubelet creates.
const MirrorPodAnnotation = "kubernetes.io/config.mirror"

// NotMirrorPod is a match condition that leaves mirror pods out: the kubelet runs a static
// pod from its file and only shows it through the API, so a mutation changes what the API shows,
// not what runs (admit lint C04 asks mutating webhooks on pods for it). Requests without an
// object (DELETE) still match.
func NotMirrorPod() admissionregistrationv1.MatchCondition {
	return admissionregistrationv1.MatchCondition{
		Name:       "not-mirror-pod",
		Expression: "object == null || !has(object.metadata.annotations) || !('" + MirrorPodAnnotation + "' in object.metadata.annotations)",
	}
}
