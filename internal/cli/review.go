package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/spf13/cobra"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/config"
	"github.com/admitkit/admit/resources"
)

type reviewOptions struct {
	file        string
	webhooks    []string
	namespaces  string
	crds        []string
	old         string
	operation   string
	subresource string
	dryRun      bool
	user        string
	groups      []string
	timeout     time.Duration
	resolve     []string
	output      string
	color       string
}

func newReviewCommand(streams Streams) *cobra.Command {
	o := &reviewOptions{}
	cmd := &cobra.Command{
		Use:   "review -f OBJECT.yaml [--webhooks PATH]...",
		Short: "Run an object through webhook configurations exactly as kube-apiserver would",
		Long: `Run one admission offline: the object goes through the mutating webhooks (with reinvocation), then the
validating webhooks, calling each matching webhook over HTTPS as kube-apiserver 1.36 does, with its
matching rules, failure policies and exact error messages.

Without --webhooks, admit's built-in example webhooks are served in-process on loopback with a
throwaway CA and used instead.

Exit codes: 0 admitted, 1 rejected, 2 bad input.`,
		Example: `  # the built-in webhooks on an example Deployment
  admit review -f examples/builtin/testdata/demo-deployment.yaml

  # your configurations; services resolved to a server running on this machine
  admit review -f pod.yaml --webhooks deploy/webhooks.yaml --resolve admit-system/admit=127.0.0.1:9443

  # an update, as JSON for scripts
  admit review -f new.yaml --old old.yaml --webhooks hooks/ -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), streams) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.file, "filename", "f", "", `the object to admit (YAML or JSON; "-" for stdin)`)
	f.StringSliceVar(&o.webhooks, "webhooks", nil, "files or directories of Mutating/ValidatingWebhookConfigurations (repeatable)")
	f.StringVar(&o.namespaces, "namespaces", "", "Namespace objects for namespaceSelector lookups; unlisted namespaces have only their kubernetes.io/metadata.name label")
	f.StringSliceVar(&o.crds, "crds", nil, "CustomResourceDefinitions of custom kinds (repeatable)")
	f.StringVar(&o.old, "old", "", "the existing object, for UPDATE")
	f.StringVar(&o.operation, "operation", "", "CREATE, UPDATE, DELETE or CONNECT (default CREATE, or UPDATE with --old)")
	f.StringVar(&o.subresource, "subresource", "", "subresource of the request, e.g. status")
	f.BoolVar(&o.dryRun, "dry-run", false, "review as a dry-run request")
	f.StringVar(&o.user, "user", "admit-review", "username of the requesting user")
	f.StringSliceVar(&o.groups, "group", []string{"system:authenticated"}, "groups of the requesting user (repeatable)")
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "the request's deadline, as the apiserver's request timeout")
	f.StringSliceVar(&o.resolve, "resolve", nil, "NAMESPACE/SERVICE=HOST:PORT: where to reach a service webhook (repeatable)")
	f.StringVar(&o.color, "color", "auto", "colour the text diff: auto, always or never")
	addOutputFlag(cmd, &o.output)
	_ = cmd.MarkFlagRequired("filename")
	_ = cmd.RegisterFlagCompletionFunc("operation", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"CREATE", "UPDATE", "DELETE", "CONNECT"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func (o *reviewOptions) run(ctx context.Context, streams Streams) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	mapper, err := o.mapper()
	if err != nil {
		return badInput(err)
	}
	req, err := o.request(streams, mapper)
	if err != nil {
		return badInput(err)
	}
	namespaces, err := o.loadNamespaces()
	if err != nil {
		return badInput(err)
	}
	resolver, err := parseResolve(o.resolve)
	if err != nil {
		return badInput(err)
	}

	var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
	var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	if len(o.webhooks) > 0 {
		set, err := config.Load(config.Options{}, o.webhooks...)
		if err != nil {
			return badInput(err)
		}
		warnings, err := set.Validate()
		for _, w := range warnings {
			fmt.Fprintln(streams.Err, "warning:", w)
		}
		if err != nil {
			return badInput(err)
		}
		mutating, validating = set.MutatingConfigs(), set.ValidatingConfigs()
	} else {
		demo, err := startDemoWebhooks(ctx)
		if err != nil {
			return fmt.Errorf("starting the built-in webhooks: %w", err)
		}
		defer demo.stop()
		mutating, validating = demo.mutating, demo.validating
	}

	d, err := dispatch.New(dispatch.Options{
		Mutating: mutating, Validating: validating, Namespaces: namespaces, Resources: mapper,
		Conditions: dispatch.CELConditions(nil), ServiceResolver: resolver,
	})
	if err != nil {
		return badInput(err)
	}
	reviewCtx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	result, err := d.Admit(reviewCtx, req)
	if err != nil {
		return badInput(err)
	}
	if o.output == outputText {
		err = printReviewText(streams.Out, req, result, useColor(o.color, streams.Out))
	} else {
		err = writeStructured(streams.Out, o.output, result)
	}
	if err != nil {
		return err
	}
	if !result.Allowed {
		return &exitError{code: ExitRejected, err: errors.New("")}
	}
	return nil
}

// mapper knows built-in kinds and the custom ones from --crds.
func (o *reviewOptions) mapper() (*resources.Mapper, error) {
	mapper, err := resources.Builtin()
	if err != nil {
		return nil, err
	}
	if len(o.crds) == 0 {
		return mapper, nil
	}
	set, err := config.Load(config.Options{}, o.crds...)
	if err != nil {
		return nil, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, obj := range set.Others {
		if obj.Object.GetKind() != "CustomResourceDefinition" {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object.Object, &crd); err != nil {
			return nil, fmt.Errorf("%s: reading CustomResourceDefinition: %w", obj.Source, err)
		}
		crds = append(crds, &crd)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("--crds %s: no CustomResourceDefinition found", strings.Join(o.crds, ", "))
	}
	return mapper.WithCRDs(crds...)
}

// readObject reads the single object of a file (or stdin).
func readObject(name string, streams Streams) (*unstructured.Unstructured, error) {
	data, err := readInput(name, streams.In)
	if err != nil {
		return nil, err
	}
	label := name
	if name == "-" {
		label = "<stdin>"
	}
	set, err := config.Parse(label, data)
	if err != nil {
		return nil, err
	}
	var objects []*unstructured.Unstructured
	for _, m := range set.Mutating {
		objects = append(objects, toUnstructured(m.Config, "MutatingWebhookConfiguration"))
	}
	for _, v := range set.Validating {
		objects = append(objects, toUnstructured(v.Config, "ValidatingWebhookConfiguration"))
	}
	for _, other := range set.Others {
		objects = append(objects, other.Object)
	}
	if len(objects) != 1 {
		return nil, fmt.Errorf("%s: want exactly one object, found %d", label, len(objects))
	}
	return objects[0], nil
}

func toUnstructured(obj any, kind string) *unstructured.Unstructured {
	m, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("admissionregistration.k8s.io/v1")
	u.SetKind(kind)
	return u
}

// request builds the admission the apiserver would run for the object and flags.
func (o *reviewOptions) request(streams Streams, mapper *resources.Mapper) (*dispatch.Request, error) {
	obj, err := readObject(o.file, streams)
	if err != nil {
		return nil, err
	}
	source := o.file
	if source == "-" {
		source = "<stdin>"
	}
	gvk := obj.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, fmt.Errorf("%s: the object needs apiVersion and kind", source)
	}
	res, err := mapper.ResourceFor(gvk)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (custom kinds need --crds)", source, err)
	}
	op := admissionv1.Operation(strings.ToUpper(o.operation))
	if op == "" {
		op = admissionv1.Create
		if o.old != "" {
			op = admissionv1.Update
		}
	}
	switch op {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
	default:
		return nil, fmt.Errorf("--operation %q: use CREATE, UPDATE, DELETE or CONNECT", o.operation)
	}
	if op == admissionv1.Update && o.old == "" {
		return nil, errors.New("an UPDATE needs the existing object: give --old")
	}
	if o.subresource != "" {
		if _, ok := res.Subresource(o.subresource); !ok {
			return nil, fmt.Errorf("--subresource %q: %s has no such subresource", o.subresource, res.GVR.GroupResource())
		}
	}

	namespace := obj.GetNamespace()
	switch {
	case res.GVR.Group == "" && res.GVR.Resource == "namespaces":
		namespace = obj.GetName() // a Namespace request carries its own name
	case !res.Namespaced:
		namespace = ""
	case namespace == "":
		namespace = "default"
		obj.SetNamespace(namespace)
	}
	objectJSON, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	types := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(types); err != nil {
		return nil, fmt.Errorf("registering the built-in types: %w", err)
	}
	if err := decodesAsItsKind(types, source, gvk, objectJSON); err != nil {
		return nil, err
	}
	req := &dispatch.Request{
		Kind: gvk, Resource: res.GVR, SubResource: o.subresource, Name: obj.GetName(), Namespace: namespace,
		Operation: op, DryRun: o.dryRun,
		UserInfo: authenticationv1.UserInfo{Username: o.user, Groups: o.groups},
	}
	if op == admissionv1.Create && req.Name == "" {
		if obj.GetGenerateName() == "" {
			return nil, fmt.Errorf("%s: the object needs metadata.name or metadata.generateName", source)
		}
		req.GeneratedName = obj.GetGenerateName() + randomSuffix()
	}
	switch op {
	case admissionv1.Delete:
		req.OldObject = objectJSON
	default:
		req.Object = objectJSON
	}
	if o.old != "" {
		if op != admissionv1.Update {
			return nil, fmt.Errorf("--old is for UPDATE, not %s", op)
		}
		old, err := readObject(o.old, streams)
		if err != nil {
			return nil, err
		}
		if old.GroupVersionKind() != gvk || old.GetName() != obj.GetName() {
			return nil, fmt.Errorf("--old is %s %q, want the same %s %q", old.GroupVersionKind().Kind, old.GetName(), gvk.Kind, obj.GetName())
		}
		if req.OldObject, err = json.Marshal(old.Object); err != nil {
			return nil, err
		}
		if err := decodesAsItsKind(types, o.old, gvk, req.OldObject); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// decodesAsItsKind rejects a built-in object that does not decode into its Go type, with the
// message kube-apiserver answers such a write with (400 BadRequest) before admission starts.
// The dispatcher relies on it: it checks a patched object only where the patch wrote.
func decodesAsItsKind(types *runtime.Scheme, source string, gvk schema.GroupVersionKind, object []byte) error {
	typed, err := types.New(gvk)
	if err != nil {
		return nil // a custom kind: its schema is the apiserver's business
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(object, typed); err != nil {
		return fmt.Errorf("%s: %s in version %q cannot be handled as a %s: %w", source, gvk.Kind, gvk.Version, gvk.Kind, err)
	}
	return nil
}

// randomSuffix is what the apiserver appends to generateName: five characters.
func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return string(b)
}

func (o *reviewOptions) loadNamespaces() (dispatch.StaticNamespaces, error) {
	if o.namespaces == "" {
		return dispatch.StaticNamespaces{}, nil
	}
	set, err := config.Load(config.Options{}, o.namespaces)
	if err != nil {
		return nil, err
	}
	var namespaces []*corev1.Namespace
	for _, obj := range set.Others {
		if obj.Object.GroupVersionKind() != (schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}) {
			return nil, fmt.Errorf("%s: --namespaces takes Namespace objects, found %s", obj.Source, obj.Object.GetKind())
		}
		var ns corev1.Namespace
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object.Object, &ns); err != nil {
			return nil, fmt.Errorf("%s: %w", obj.Source, err)
		}
		namespaces = append(namespaces, &ns)
	}
	return dispatch.NewStaticNamespaces(namespaces...), nil
}

// parseResolve reads NAMESPACE/SERVICE=HOST:PORT mappings into a service resolver.
func parseResolve(entries []string) (dispatch.ServiceResolver, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	targets := map[string]string{}
	for _, e := range entries {
		key, addr, ok := strings.Cut(e, "=")
		ns, name, okName := strings.Cut(key, "/")
		if !ok || !okName || ns == "" || name == "" || addr == "" {
			return nil, fmt.Errorf("--resolve %q: want NAMESPACE/SERVICE=HOST:PORT", e)
		}
		targets[key] = addr
	}
	return func(namespace, name string, port int32) (string, error) {
		if addr, ok := targets[namespace+"/"+name]; ok {
			return addr, nil
		}
		return fmt.Sprintf("%s.%s.svc:%d", name, namespace, port), nil
	}, nil
}
