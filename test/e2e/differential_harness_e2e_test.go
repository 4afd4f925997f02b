//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/clusterstate"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/celconditions"
	"github.com/admitkit/admit/dispatch/live"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/webhooktest"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/resources/convert"
)

// This file is the harness of the differential suite (differential_e2e_test.go): every scenario
// is one admission run twice with the same webhook configurations and the same webhook server,
// once through the real kube-apiserver and once through dispatch.Dispatcher.Admit, and the two
// outcomes must be identical.
//
// What is compared, and how it is normalised:
//   - the decision, and when rejected the whole metav1.Status the client receives (code, reason,
//     message, details) with apiVersion/kind cleared (client-go fills them) and the random UID of
//     each webhook call replaced by <uid> wherever a message quotes it;
//   - the warnings, in order (client-go's WarningHandler on the apiserver side);
//   - the number of calls each webhook received, the timeout each call announced, and every
//     AdmissionRequest it received, without its uid (random per call);
//   - the object: the admitted one the apiserver returns against Result.Object, and the object and
//     oldObject in each AdmissionRequest. Only what webhooks write and what conversion produces is
//     compared: apiVersion, kind, metadata name/generateName/namespace/labels/annotations/finalizers, and the
//     top-level fields the scenario names (data, spec...); an empty labels or annotations map
//     counts as none. The rest is the apiserver's own work, which an offline dispatcher cannot do
//     and is not asked to: server-side metadata (uid, resourceVersion, creationTimestamp,
//     generation, managedFields), built-in defaulting, and the conversion round trip the
//     apiserver's answer makes through its internal version (an autoscaling/v1 answer carries
//     round-trip annotations even when no webhook changed the object). Scenarios avoid what
//     these would change in the compared fields: an HPA gives its minReplicas and CPU target, and
//     where a v1 answer would gain annotations a webhook patches, so that both sides convert.
//
// The dispatcher is given what the apiserver knows and a caller of admit would pass: the object as
// the client sent it, the stored object as oldObject, the options the client sent, the requesting
// user (read from a readiness marker's AdmissionReview), the generated name of a generateName
// CREATE, namespace labels read live (live.Namespaces), the built-in resource mapper (with
// the scenario's CRD) and convert.Converter for matchPolicy Equivalent, and CEL matchConditions
// with no authorizer (no scenario's conditions ask one).
//
// Scenarios run in parallel: each has its own webhook server, namespace (with a label unique to it,
// which every webhook's namespaceSelector requires) and configurations. Each configuration ends
// with a readiness marker that denies only labelled ConfigMaps in a shared markers namespace; a
// scenario starts once every marker denies, i.e. once the apiserver has every configuration.

// diffSuffix ends the name of every webhook of the suite: names need three DNS segments.
const diffSuffix = ".diff.e2e.admit.dev"

// hook is one webhook of a scenario. The zero value is a Fail webhook on CREATE of configmaps in
// the scenario's namespace, with matchPolicy Equivalent, sideEffects None and the 10s default
// timeout — the v1 defaults, which the apiserver applies when the configuration is created.
type hook struct {
	// name is the webhook's name before diffSuffix.
	name string
	// path is the webhooktest path the webhook calls.
	path string
	// unreachable points the webhook at a loopback port nothing listens on instead of path.
	unreachable bool

	rules             []admissionregistrationv1.RuleWithOperations
	ignore            bool
	exact             bool
	objectSelector    *metav1.LabelSelector
	namespaceSelector []metav1.LabelSelectorRequirement // ANDed with the scenario's own label
	matchConditions   []admissionregistrationv1.MatchCondition
	timeoutSeconds    int32
	sideEffects       admissionregistrationv1.SideEffectClass
	reinvokeIfNeeded  bool
	reviewVersions    []string // default v1
	// marker scopes the webhook to the markers namespace instead of the scenario's.
	marker bool
}

// configuration is a webhook configuration of a scenario, named <scenario id>-<suffix>: the
// apiserver orders configurations by name.
type configuration struct {
	suffix string
	hooks  []hook
}

// one is a scenario's only configuration of a type.
func one(hooks ...hook) []configuration { return []configuration{{suffix: "0", hooks: hooks}} }

// write is the client's request of a scenario.
type write struct {
	op  admissionv1.Operation
	gvr schema.GroupVersionResource
	// subresource is "status" (through UpdateStatus, the whole object) or "scale" (the
	// stored object's Scale, read through the subresource, changed by update).
	subresource string
	// object is what a CREATE sends; its name and namespace are filled in.
	object map[string]any
	// generateName CREATEs with metadata.generateName instead of a name.
	generateName bool
	// anonymous CREATEs an object without a name (the review kinds need none).
	anonymous bool
	// existing is created before the webhooks are configured, for UPDATE and DELETE.
	existing map[string]any
	// update changes a copy of the stored existing object into what an UPDATE sends.
	update func(obj *unstructured.Unstructured)
	// prepare completes what a CREATE sends once its namespace is known.
	prepare func(obj *unstructured.Unstructured)
	dryRun  bool
	// clusterScoped writes a cluster-scoped object: it is named after the scenario and carries
	// the scenario's label (which the webhooks' namespaceSelector then sees on a Namespace).
	clusterScoped bool
	// options are what the client sends besides dry run, e.g. fieldValidation.
	fieldValidation string
}

// want is what the apiserver must decide: a scenario checks that it tests what it says before the
// dispatcher is compared with the apiserver.
type want struct {
	code    int32 // 0: admitted
	message string
	calls   map[string]int // per webhooktest path
}

// differential is one scenario.
type differential struct {
	name                 string
	namespaceLabels      map[string]string
	mutating, validating []configuration
	write                write
	// fields are the top-level object fields compared besides apiVersion, kind and metadata;
	// default data.
	fields []string
	want   want
	// check asserts more on the apiserver's outcome, e.g. what a webhook received.
	check func(t *testing.T, apiserver *outcome)
	// crd is created for the scenario and known to the dispatcher's mapper and converter.
	crd *apiextensionsv1.CustomResourceDefinition
	// compareStatus replaces the equality of the two statuses, for the one documented difference.
	compareStatus func(t *testing.T, apiserver, dispatcher *metav1.Status, result *engine.Result)
	// setup prepares the scenario's namespace before the webhooks are configured, e.g. with a
	// LimitRange.
	setup func(t *testing.T, namespace string)
	// policies are admission policies and bindings (named after the scenario and scoped to its
	// namespace by the harness) and their parameters (created in the scenario's namespace).
	policies []map[string]any
	// apiserverPanics: the webhook's answer makes kube-apiserver's handler panic, so its client
	// gets no status, only a reset stream; the dispatcher must answer an internal error instead.
	apiserverPanics bool
	// handlerAnswers: the apiserver's answer is its handler's verdict, not the admitted object (a
	// TokenReview's status says whether the token authenticates), which admit does not compute:
	// what the webhooks received is compared, the answers are not.
	handlerAnswers bool
}

// outcome is one side's result, normalised for comparison.
type outcome struct {
	Allowed  bool
	Status   *metav1.Status
	Warnings []string
	Object   map[string]any
	Calls    map[string]int
	Requests map[string][]seenRequest
	// Wire is each call as it arrived, compared as JSON: what the typed Requests cannot show
	// (the review's apiVersion and kind, field names, fields AdmissionRequest does not have),
	// with the headers and protocol.
	Wire map[string][]wireCall
	// Timeouts are the timeout query parameters the webhooks were called with.
	Timeouts map[string][]string
}

// seenRequest is an AdmissionRequest as a webhook received it, without its uid.
type seenRequest struct {
	Kind               metav1.GroupVersionKind
	Resource           metav1.GroupVersionResource
	SubResource        string
	RequestKind        *metav1.GroupVersionKind
	RequestResource    *metav1.GroupVersionResource
	RequestSubResource string
	Name, Namespace    string
	Operation          admissionv1.Operation
	UserInfo           authenticationv1.UserInfo
	DryRun             *bool
	Options            map[string]any
	Object, OldObject  map[string]any
}

// wireCall is a call as a webhook received it, with what differs by chance normalised: the uid,
// the objects' random fields.
type wireCall struct {
	Proto   string
	Headers map[string]string
	Review  map[string]any
}

// wireHeaders are the headers the two callers must send alike. Content-Length follows from the
// body, which is compared; Accept-Encoding is net/http's own.
var wireHeaders = []string{"Content-Type", "Accept", "User-Agent", "Content-Encoding", "Authorization"}

// differentialSuite is what the scenarios share: the markers namespace and the dispatcher's
// resource mapper and converter.
type differentialSuite struct {
	markersNamespace string
	markersLabel     map[string]string
	dynamic          dynamic.Interface
	builtin          *resources.Mapper
	converter        *convert.Converter
}

func newDifferentialSuite(t *testing.T) *differentialSuite {
	t.Helper()
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	converter, err := convert.New()
	if err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	name := "diff-markers-" + rand.String(6)
	label := map[string]string{"admit-e2e-diff-markers": name}
	createNamespace(t, name, label)
	return &differentialSuite{markersNamespace: name, markersLabel: label, dynamic: client, builtin: mapper, converter: converter}
}

// createNamespace creates a namespace with labels and its default ServiceAccount (no controller
// manager runs to create it, and pods need it), deleted when the test ends.
func createNamespace(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	ctx := context.Background()
	if _, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = env.Client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	if _, err := env.Client.CoreV1().ServiceAccounts(name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the default ServiceAccount of %s: %v", name, err)
	}
}

// scenarioRun is the state of one scenario: its server, namespace and configurations.
type scenarioRun struct {
	suite     *differentialSuite
	sc        *differential
	id        string
	server    *webhooktest.Server
	namespace string
	scopeKey  string
	// unreachableURL is a loopback URL nothing listens on.
	unreachableURL string
	mutating       []*admissionregistrationv1.MutatingWebhookConfiguration
	validating     []*admissionregistrationv1.ValidatingWebhookConfiguration
	userInfo       authenticationv1.UserInfo
	// stored is the existing object as stored, for UPDATE and DELETE.
	stored *unstructured.Unstructured
	// storedScale is the stored object's Scale, read through its scale subresource.
	storedScale *unstructured.Unstructured
	// paths are the webhooktest paths of the scenario's webhooks.
	paths []string
	// mapper and converter are the suite's, with the scenario's CRD.
	mapper    *resources.Mapper
	converter *convert.Converter
	// policyObjects are the policies, bindings and parameters created for the scenario, as
	// stored.
	policyObjects []runtime.Object
}

// run runs one scenario: set up, admit through the apiserver, admit through the dispatcher, compare.
func (suite *differentialSuite) run(t *testing.T, sc *differential) {
	r := &scenarioRun{suite: suite, sc: sc, id: "diff-" + rand.String(8), server: webhooktest.Start(t)}
	r.namespace, r.scopeKey = r.id, "admit-e2e-diff"
	labels := map[string]string{r.scopeKey: r.id}
	for k, v := range sc.namespaceLabels {
		labels[k] = v
	}
	createNamespace(t, r.namespace, labels)
	r.unreachableURL = unreachableURL(t)
	r.mapper, r.converter = suite.builtin, suite.converter
	if sc.crd != nil {
		createCRD(t, sc.crd)
		var err error
		if r.mapper, err = suite.builtin.WithCRDs(sc.crd); err != nil {
			t.Fatal(err)
		}
		if r.converter, err = convert.New(sc.crd); err != nil {
			t.Fatal(err)
		}
	}
	if sc.setup != nil {
		sc.setup(t, r.namespace)
	}
	if sc.write.existing != nil {
		r.createExisting(t)
	}
	r.createPolicies(t)
	r.configure(t)
	r.awaitMarkers(t)
	r.awaitPolicies(t)
	r.server.Reset()

	apiserver, generatedName, apiserverUIDs := r.throughAPIServer(t)
	r.server.Reset()
	dispatcher, result, dispatcherUIDs := r.throughDispatcher(t, generatedName)

	// Calls quote their random UID in some messages; each side's UIDs become <uid>.
	apiserver.Status = withoutUIDs(apiserver.Status, apiserverUIDs)
	dispatcher.Status = withoutUIDs(dispatcher.Status, dispatcherUIDs)

	if sc.apiserverPanics {
		if apiserver.Status != nil {
			t.Fatalf("kube-apiserver answered %d %q, want its handler to panic", apiserver.Status.Code, apiserver.Status.Message)
		}
		if s := dispatcher.Status; s == nil || s.Code != 500 || s.Reason != metav1.StatusReasonInternalError || !strings.Contains(s.Message, "applying the patch panicked") {
			t.Fatalf("the dispatcher answered %+v, want a 500 InternalError saying the patch panicked", s)
		}
		dispatcher.Status = nil // the rest (calls, requests) must still be the same
	} else {
		r.checkWant(t, apiserver)
	}
	if sc.check != nil {
		sc.check(t, apiserver)
	}
	if sc.compareStatus != nil {
		sc.compareStatus(t, apiserver.Status, dispatcher.Status, result)
		apiserver.Status, dispatcher.Status = nil, nil
	}
	if sc.handlerAnswers {
		apiserver.Object, dispatcher.Object = nil, nil
	}
	if diff := cmp.Diff(apiserver, dispatcher); diff != "" {
		t.Errorf("the dispatcher differs from kube-apiserver (-apiserver +dispatcher):\n%s", diff)
	}
}

// unreachableURL returns a loopback URL whose port was free a moment ago: connections are refused.
func unreachableURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "https://" + addr + webhooktest.PathAllow
}

func (r *scenarioRun) createExisting(t *testing.T) {
	t.Helper()
	w := r.sc.write
	obj := &unstructured.Unstructured{Object: deepCopyMap(w.existing)}
	obj.SetNamespace(r.namespace)
	if obj.GetName() == "" {
		obj.SetName("existing")
	}
	stored, err := r.suite.dynamic.Resource(w.gvr).Namespace(r.namespace).Create(context.Background(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the existing object: %v", err)
	}
	r.stored = stored
	if w.subresource == "scale" {
		if r.storedScale, err = r.suite.dynamic.Resource(w.gvr).Namespace(r.namespace).Get(context.Background(), stored.GetName(), metav1.GetOptions{}, "scale"); err != nil {
			t.Fatalf("reading the existing object's scale: %v", err)
		}
	}
}

// configure creates the scenario's configurations, each with a readiness marker at its end.
func (r *scenarioRun) configure(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	configs := env.Client.AdmissionregistrationV1()
	for _, c := range r.sc.mutating {
		config := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: r.id + "-" + c.suffix}}
		for _, h := range slices.Concat(c.hooks, []hook{r.marker(config.Name)}) {
			config.Webhooks = append(config.Webhooks, asMutatingWebhook(r.webhook(h), h.reinvokeIfNeeded))
		}
		created, err := configs.MutatingWebhookConfigurations().Create(ctx, config, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating MutatingWebhookConfiguration %s: %v", config.Name, err)
		}
		t.Cleanup(func() {
			_ = configs.MutatingWebhookConfigurations().Delete(context.Background(), created.Name, metav1.DeleteOptions{})
		})
		r.mutating = append(r.mutating, created)
	}
	for _, c := range r.sc.validating {
		config := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: r.id + "-" + c.suffix}}
		for _, h := range slices.Concat(c.hooks, []hook{r.marker(config.Name)}) {
			config.Webhooks = append(config.Webhooks, r.webhook(h))
		}
		created, err := configs.ValidatingWebhookConfigurations().Create(ctx, config, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating ValidatingWebhookConfiguration %s: %v", config.Name, err)
		}
		t.Cleanup(func() {
			_ = configs.ValidatingWebhookConfigurations().Delete(context.Background(), created.Name, metav1.DeleteOptions{})
		})
		r.validating = append(r.validating, created)
	}
}

// markerPath is what every readiness marker calls: a denial naming its configuration proves
// that configuration is in effect.
func markerPath(configuration string) string {
	return webhooktest.Deny(webhooktest.Message("marker " + configuration))
}

// marker is the readiness webhook of a configuration: it denies ConfigMaps labelled with the
// configuration's name in the markers namespace only, so no scenario request ever reaches it.
func (r *scenarioRun) marker(configuration string) hook {
	return hook{name: "marker", path: markerPath(configuration), marker: true,
		objectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"marker": configuration}}}
}

// webhook renders h for this scenario: its URL on the scenario's server and its scope.
func (r *scenarioRun) webhook(h hook) admissionregistrationv1.ValidatingWebhook {
	cc := r.server.ClientConfig(h.path)
	if h.unreachable {
		u := r.unreachableURL
		cc.URL = &u
	} else {
		r.paths = append(r.paths, h.path)
		// kube-apiserver cleans the URL's path (client-go joins it): record what reaches the
		// cleaned path too, so that a caller that does not is seen calling elsewhere.
		if cleaned := path.Clean(h.path); cleaned != h.path {
			r.paths = append(r.paths, cleaned)
		}
	}
	w := admissionregistrationv1.ValidatingWebhook{
		Name:                    h.name + diffSuffix,
		ClientConfig:            cc,
		Rules:                   h.rules,
		NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{r.scopeKey: r.id}, MatchExpressions: h.namespaceSelector},
		ObjectSelector:          h.objectSelector,
		MatchConditions:         h.matchConditions,
		SideEffects:             ptrTo(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
	if h.marker {
		w.NamespaceSelector = &metav1.LabelSelector{MatchLabels: r.suite.markersLabel}
	}
	if w.Rules == nil {
		w.Rules = []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "", "v1", "configmaps")}
	}
	if h.ignore {
		w.FailurePolicy = ptrTo(admissionregistrationv1.Ignore)
	}
	if h.exact {
		w.MatchPolicy = ptrTo(admissionregistrationv1.Exact)
	}
	if h.timeoutSeconds != 0 {
		w.TimeoutSeconds = ptrTo(h.timeoutSeconds)
	}
	if h.reviewVersions != nil {
		w.AdmissionReviewVersions = h.reviewVersions
	}
	if h.sideEffects != "" {
		w.SideEffects = ptrTo(h.sideEffects)
	}
	return w
}

// rule is a namespaced rule for one operation on one resource (or subresource).
func rule(op admissionregistrationv1.OperationType, group, version, resource string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{op},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource},
			Scope: ptrTo(admissionregistrationv1.NamespacedScope)},
	}
}

func asMutatingWebhook(w admissionregistrationv1.ValidatingWebhook, reinvokeIfNeeded bool) admissionregistrationv1.MutatingWebhook {
	m := admissionregistrationv1.MutatingWebhook{
		Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
		NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector, SideEffects: w.SideEffects,
		TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
	}
	if reinvokeIfNeeded {
		m.ReinvocationPolicy = ptrTo(admissionregistrationv1.IfNeededReinvocationPolicy)
	}
	return m
}

// awaitMarkers waits until every configuration of the scenario is in effect, and reads the
// requesting user from a marker's AdmissionReview.
func (r *scenarioRun) awaitMarkers(t *testing.T) {
	t.Helper()
	var names []string
	for _, c := range r.mutating {
		names = append(names, c.Name)
	}
	for _, c := range r.validating {
		names = append(names, c.Name)
	}
	configmaps := env.Client.CoreV1().ConfigMaps(r.suite.markersNamespace)
	for _, name := range names {
		eventually(t, "configuration "+name+" to take effect", func() error {
			marker := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "marker", Labels: map[string]string{"marker": name}}}
			_, err := configmaps.Create(context.Background(), marker, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil || !strings.Contains(err.Error(), "marker "+name) {
				return fmt.Errorf("marker not denied yet: %v", err)
			}
			return nil
		})
		if requests := r.server.Requests(markerPath(name)); len(requests) > 0 {
			r.userInfo = requests[0].UserInfo
		}
	}
	if r.userInfo.Username == "" {
		t.Fatal("no marker call recorded the requesting user")
	}
}

// warningCollector records the Warning headers of a client's responses.
type warningCollector struct {
	mu       sync.Mutex
	warnings []string
}

func (c *warningCollector) HandleWarningHeader(_ int, _ string, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warnings = append(c.warnings, text)
}

// throughAPIServer performs the scenario's write with client-go and returns the outcome, the name
// a generateName CREATE got, and the UIDs of the webhook calls.
func (r *scenarioRun) throughAPIServer(t *testing.T) (*outcome, string, []string) {
	t.Helper()
	w := r.sc.write
	warnings := &warningCollector{}
	config := rest.CopyConfig(env.RESTConfig)
	config.WarningHandler = warnings
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var resource dynamic.ResourceInterface = client.Resource(w.gvr).Namespace(r.namespace)
	if w.clusterScoped {
		resource = client.Resource(w.gvr)
	}
	ctx := context.Background()
	var dryRun []string
	if w.dryRun {
		dryRun = []string{metav1.DryRunAll}
	}

	var admitted *unstructured.Unstructured
	switch w.op {
	case admissionv1.Create:
		admitted, err = resource.Create(ctx, r.newObject(), metav1.CreateOptions{DryRun: dryRun, FieldValidation: w.fieldValidation})
		if err == nil && w.clusterScoped && !w.dryRun {
			name := admitted.GetName()
			t.Cleanup(func() { _ = resource.Delete(context.Background(), name, metav1.DeleteOptions{}) })
		}
	case admissionv1.Update:
		switch w.subresource {
		case "status":
			admitted, err = resource.UpdateStatus(ctx, r.updatedObject(), metav1.UpdateOptions{DryRun: dryRun})
		case "scale":
			admitted, err = resource.Update(ctx, r.updatedObject(), metav1.UpdateOptions{DryRun: dryRun}, "scale")
		default:
			admitted, err = resource.Update(ctx, r.updatedObject(), metav1.UpdateOptions{DryRun: dryRun, FieldValidation: w.fieldValidation})
		}
	case admissionv1.Delete:
		err = resource.Delete(ctx, r.stored.GetName(), metav1.DeleteOptions{DryRun: dryRun})
	default:
		t.Fatalf("the harness cannot perform %s", w.op)
	}

	out := &outcome{Allowed: err == nil, Warnings: warnings.warnings}
	if err != nil {
		var status apierrors.APIStatus
		switch {
		case errors.As(err, &status):
			s := status.Status()
			out.Status = &s
		case r.sc.apiserverPanics:
			t.Logf("kube-apiserver panicked, as expected: %v", err)
		default:
			t.Fatalf("kube-apiserver answered something else than a status: %v", err)
		}
	} else if r.sc.apiserverPanics {
		t.Fatal("kube-apiserver admitted the request, want its handler to panic")
	}
	generatedName := ""
	if admitted != nil && w.op != admissionv1.Delete {
		// Through JSON, so that numbers compare as the dispatcher's do.
		out.Object = r.admitted(decodeObject(mustJSON(t, admitted.Object)))
		// The dispatcher is given the name the registry generated; when a mutating webhook named
		// the object the registry generated none, and the dispatcher is given one anyway, which it
		// must not use.
		if w.generateName {
			generatedName = admitted.GetName()
			if !strings.HasPrefix(generatedName, admitted.GetGenerateName()) {
				generatedName = admitted.GetGenerateName() + "unused"
			}
		}
	}
	uids := r.record(out)
	return out, generatedName, uids
}

// newObject is the object a CREATE sends.
func (r *scenarioRun) newObject() *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: deepCopyMap(r.sc.write.object)}
	if r.sc.write.anonymous {
		return obj
	}
	if r.sc.write.clusterScoped {
		obj.SetName(r.id + "-" + obj.GetName())
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[r.scopeKey] = r.id
		obj.SetLabels(labels)
	} else {
		obj.SetNamespace(r.namespace)
	}
	if r.sc.write.generateName {
		obj.SetName("")
		obj.SetGenerateName("generated-")
	} else if obj.GetName() == "" {
		obj.SetName("object")
	}
	if r.sc.write.prepare != nil {
		r.sc.write.prepare(obj)
	}
	return obj
}

// updatedObject is the object an UPDATE sends: the stored object (or its Scale), changed.
func (r *scenarioRun) updatedObject() *unstructured.Unstructured {
	obj := r.stored.DeepCopy()
	if r.storedScale != nil {
		obj = r.storedScale.DeepCopy()
	}
	r.sc.write.update(obj)
	return obj
}

// record reads what the webhooks received and returns the UIDs of the calls.
func (r *scenarioRun) record(out *outcome) []string {
	out.Calls, out.Requests, out.Timeouts = map[string]int{}, map[string][]seenRequest{}, map[string][]string{}
	out.Wire = map[string][]wireCall{}
	var uids []string
	for _, p := range r.paths {
		out.Calls[p] = r.server.Calls(p)
		out.Timeouts[p] = r.server.Timeouts(p)
		var seen []seenRequest
		for _, req := range r.server.Requests(p) {
			uids = append(uids, string(req.UID))
			seen = append(seen, seenRequest{
				Kind: req.Kind, Resource: req.Resource, SubResource: req.SubResource,
				RequestKind: req.RequestKind, RequestResource: req.RequestResource, RequestSubResource: req.RequestSubResource,
				Name: req.Name, Namespace: req.Namespace, Operation: req.Operation, UserInfo: req.UserInfo, DryRun: req.DryRun,
				Options: decodeObject(req.Options.Raw), Object: r.normalise(decodeObject(req.Object.Raw)), OldObject: r.normalise(decodeObject(req.OldObject.Raw)),
			})
		}
		out.Requests[p] = seen
		for _, call := range r.server.Wire(p) {
			out.Wire[p] = append(out.Wire[p], r.wireCall(call))
		}
	}
	return uids
}

// wireCall normalises a call as it arrived.
func (r *scenarioRun) wireCall(call webhooktest.Wire) wireCall {
	headers := map[string]string{}
	for _, h := range wireHeaders {
		if v := call.Header.Values(h); len(v) > 0 {
			headers[h] = strings.Join(v, ", ")
		}
	}
	review := decodeObject(call.Body)
	if review == nil {
		return wireCall{Proto: call.Proto, Headers: headers, Review: map[string]any{"<not a JSON object>": string(call.Body)}}
	}
	if request, ok := review["request"].(map[string]any); ok {
		if _, ok := request["uid"]; ok {
			request["uid"] = "<uid>"
		}
		for _, f := range []string{"object", "oldObject"} {
			if obj, ok := request[f].(map[string]any); ok {
				request[f] = r.normalise(obj)
			}
		}
	}
	return wireCall{Proto: call.Proto, Headers: headers, Review: review}
}

// throughDispatcher admits the same write with dispatch.Dispatcher.Admit.
func (r *scenarioRun) throughDispatcher(t *testing.T, generatedName string) (*outcome, *engine.Result, []string) {
	t.Helper()
	w := r.sc.write
	kind, err := r.mapper.KindFor(w.gvr, w.subresource)
	if err != nil {
		t.Fatal(err)
	}
	req := &engine.Request{
		Kind: kind, Resource: w.gvr, SubResource: w.subresource, Namespace: r.namespace, Operation: w.op,
		DryRun: w.dryRun, UserInfo: r.userInfo, GeneratedName: generatedName,
	}
	var dryRun []string
	if w.dryRun {
		dryRun = []string{metav1.DryRunAll}
	}
	switch w.op {
	case admissionv1.Create:
		obj := r.newObject()
		req.Name = obj.GetName()
		req.Object = mustJSON(t, obj.Object)
		req.Options = mustJSON(t, metav1.CreateOptions{TypeMeta: metav1.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"}, DryRun: dryRun, FieldValidation: w.fieldValidation})
		if w.clusterScoped {
			req.Namespace = ""
			if w.gvr == (schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}) {
				req.Namespace = req.Name // a Namespace request carries its own name
			}
		}
	case admissionv1.Update:
		obj := r.updatedObject()
		req.Name = obj.GetName()
		req.Object, req.OldObject = mustJSON(t, obj.Object), mustJSON(t, r.stored.Object)
		if r.storedScale != nil {
			// The Scale the client sent, on the stored object it scales.
			req.OldObject, req.Parent = mustJSON(t, r.storedScale.Object), mustJSON(t, r.stored.Object)
		}
		req.Options = mustJSON(t, metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{Kind: "UpdateOptions", APIVersion: "meta.k8s.io/v1"}, DryRun: dryRun, FieldValidation: w.fieldValidation})
	case admissionv1.Delete:
		req.Name = r.stored.GetName()
		req.OldObject = mustJSON(t, r.stored.Object)
		req.Options = mustJSON(t, metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}, DryRun: dryRun})
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := dispatch.Options{
		Mutating: r.mutating, Validating: r.validating,
		Namespaces: live.Namespaces{Client: env.Client},
		Resources:  r.mapper,
		Conditions: celconditions.Compiler(nil),
	}
	cluster, err := clusterstate.Connect(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	live, _, err := cluster.State(ctx, clusterstate.StateOptions{Namespaces: []string{r.namespace}})
	if err != nil {
		t.Fatal(err)
	}
	var state []runtime.Object
	for _, obj := range live {
		if !resources.IsCRD(obj.GroupVersionKind().GroupKind()) {
			state = append(state, obj)
		}
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	if r.sc.crd != nil {
		crds = append(crds, r.sc.crd)
	}
	c, err := chain.New(ctx, chain.Config{Objects: append(state, r.policyObjects...), CRDs: crds, FieldManager: clientFieldManager()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	steps := c.Steps()
	opts.Codec, opts.Converter = steps.Codec, steps.Converter
	opts.Conditions = celconditions.Compiler(c.Authorizer())
	webhooks, err := dispatch.NewWebhooks(opts)
	if err != nil {
		t.Fatal(err)
	}
	result, err := steps.Pipeline(webhooks.Mutating(), webhooks.Validating()).Admit(ctx, req)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	out := &outcome{Allowed: result.Allowed, Warnings: result.Warnings}
	if result.Status != nil {
		s := *result.Status
		out.Status = &s
	}
	if len(out.Warnings) == 0 {
		out.Warnings = nil // client-go reports no warnings as nil
	}
	if result.Allowed && w.op != admissionv1.Delete {
		out.Object = r.admitted(decodeObject(result.Object))
	}
	uids := r.record(out)
	return out, result, uids
}

// normalise makes an object comparable across the two sides: what the apiserver or chance
// chooses anew for each write (see the top of this file) becomes a placeholder, and an empty map
// of labels or annotations is no map.
func (r *scenarioRun) normalise(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	out := deepCopyMap(obj)
	if meta, ok := out["metadata"].(map[string]any); ok {
		if entries, ok := meta["managedFields"].([]any); ok {
			for _, e := range entries {
				if entry, ok := e.(map[string]any); ok && entry["time"] != nil {
					entry["time"] = "<time>"
				}
			}
		}
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp"} {
			if _, ok := meta[f]; ok {
				meta[f] = "<" + f + ">"
			}
		}
		for _, f := range []string{"labels", "annotations"} {
			if isEmptyMap(meta[f]) {
				delete(meta, f)
			}
		}
		if uid, ok := obj["metadata"].(map[string]any)["uid"].(string); ok && uid != "" {
			out = replaceStrings(out, uid, "<uid>").(map[string]any)
		}
	}
	return replaceRandom(out).(map[string]any)
}

// clientFieldManager is the writer kube-apiserver names in managedFields for the harness's
// client: the part of its user agent before the first slash.
func clientFieldManager() string {
	agent := env.RESTConfig.UserAgent
	if agent == "" {
		agent = rest.DefaultKubernetesUserAgent()
	}
	return strings.Split(agent, "/")[0]
}

// admitted normalises the admitted object, whose resource version only the storage sets.
func (r *scenarioRun) admitted(obj map[string]any) map[string]any {
	out := r.normalise(obj)
	if meta, ok := out["metadata"].(map[string]any); ok {
		delete(meta, "resourceVersion")
	}
	return out
}

// randomTokenVolume is the projected service account token volume's name, random per pod.
var randomTokenVolume = regexp.MustCompile(`^kube-api-access-[a-z0-9]{5}$`)

// replaceRandom replaces the values chance picks: token volume names, allocated cluster IPs and
// node ports.
func replaceRandom(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch k {
			case "clusterIP", "clusterIPs", "nodePort":
				v[k] = "<allocated>"
			default:
				v[k] = replaceRandom(e)
			}
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = replaceRandom(e)
		}
		return v
	case string:
		if randomTokenVolume.MatchString(v) {
			return "kube-api-access-<random>"
		}
	}
	return v
}

// replaceStrings replaces every string value equal to from.
func replaceStrings(v any, from, to string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = replaceStrings(e, from, to)
		}
	case []any:
		for i, e := range v {
			v[i] = replaceStrings(e, from, to)
		}
	case string:
		if v == from {
			return to
		}
	}
	return v
}

// checkWant checks the apiserver decided what the scenario expects.
func (r *scenarioRun) checkWant(t *testing.T, apiserver *outcome) {
	t.Helper()
	want := r.sc.want
	switch {
	case want.code == 0 && !apiserver.Allowed:
		t.Fatalf("kube-apiserver rejected the request, want admitted: %d %s", apiserver.Status.Code, apiserver.Status.Message)
	case want.code != 0 && apiserver.Allowed:
		t.Fatalf("kube-apiserver admitted the request, want %d %q", want.code, want.message)
	case want.code != 0 && (apiserver.Status.Code != want.code || !strings.Contains(apiserver.Status.Message, want.message)):
		t.Fatalf("kube-apiserver answered %d %q, want %d containing %q", apiserver.Status.Code, apiserver.Status.Message, want.code, want.message)
	}
	for path, n := range want.calls {
		if got := apiserver.Calls[path]; got != n {
			t.Errorf("kube-apiserver called %s %d times, want %d", path, got, n)
		}
	}
}

// withoutUIDs returns a copy of status whose messages say <uid> for each of uids.
func withoutUIDs(status *metav1.Status, uids []string) *metav1.Status {
	if status == nil {
		return nil
	}
	s := status.DeepCopy()
	s.TypeMeta, s.ListMeta = metav1.TypeMeta{}, metav1.ListMeta{}
	replace := func(text string) string {
		for _, uid := range uids {
			text = strings.ReplaceAll(text, uid, "<uid>")
		}
		return text
	}
	s.Message = replace(s.Message)
	if s.Details != nil {
		for i := range s.Details.Causes {
			s.Details.Causes[i].Message = replace(s.Details.Causes[i].Message)
		}
	}
	return s
}

func isEmptyMap(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

func decodeObject(data []byte) map[string]any {
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		return map[string]any{"undecodable": string(data)}
	}
	return obj
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func deepCopyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}
