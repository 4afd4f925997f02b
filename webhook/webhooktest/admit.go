package webhooktest

import (
	"context"
	"net/http"
	"net/http/httptest"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/celconditions"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/webhook"
)

// AdmitOptions shape Admit.
type AdmitOptions struct {
	// Config is what the Registry's configurations say (name, exempt namespaces, runlevel). Of
	// its client configuration only Namespace is kept, the server's own namespace, which the
	// configurations exempt unless ServeOwnNamespace: the calls go to the Registry in process.
	Config webhook.ConfigOptions
	// Namespaces answers the webhooks' namespaceSelectors; default: every namespace exists with
	// only its kubernetes.io/metadata.name label.
	Namespaces dispatch.NamespaceSource
	// CRDs are the CustomResourceDefinitions of the custom kinds, as the cluster will have them:
	// with them a webhook whose rule names one version of a kind (matchPolicy Equivalent) is
	// called for requests through its other versions too, with the object converted — through
	// the Registry's conversion webhook for a CRD converting with strategy Webhook, by
	// apiVersion alone for strategy None — as kube-apiserver does. Default: one CRD for each
	// conversion webhook of the Registry whose converter is a *conversion.Hub, serving the
	// Hub's versions, namespaced unless a webhook for its kind has Scope Cluster. Give them
	// when the Registry converts nothing, or to have the cluster's order of versions.
	CRDs []*apiextensionsv1.CustomResourceDefinition
}

// Admit runs req through every webhook of reg as kube-apiserver would call them from the
// configurations reg describes (webhook.Registry.Configurations): rules, selectors, matchPolicy,
// failurePolicy, the mutating webhooks in order with reinvocation, then the validating ones. A
// request through another version of a webhook's kind reaches it converted, as AdmitOptions.CRDs
// says. The
// calls reach reg in process, over HTTP without TLS. The result has the admitted object, the
// warnings, the status of a rejection and each webhook's outcome.
func Admit(t T, reg *webhook.Registry, req *webhook.Request, opts AdmitOptions) *Result {
	t.Helper()
	config := opts.Config
	if config.Name == "" {
		config.Name = "webhooktest"
	}
	config.ClientConfig = webhook.ClientConfig{URL: "https://webhooktest.invalid", Namespace: config.Namespace}
	mutating, validating, err := reg.Configurations(config)
	if err != nil {
		t.Fatalf("webhooktest: the registry's configurations: %v", err)
	}
	crds := customResources(reg, opts.CRDs)
	mapper, err := resources.Builtin()
	if err == nil {
		mapper, err = mapper.WithCRDs(crds...)
	}
	if err != nil {
		t.Fatalf("webhooktest: the resources: %v", err)
	}
	converter, err := newRegistryConverter(reg, crds)
	if err != nil {
		t.Fatalf("webhooktest: the conversions: %v", err)
	}
	d, err := dispatch.New(dispatch.Options{
		Mutating: nonNil(mutating), Validating: nonNil(validating), Namespaces: opts.Namespaces,
		Resources: mapper, Converter: converter, Conditions: celconditions.Compiler(nil), Transport: inProcess{reg},
	})
	if err != nil {
		t.Fatalf("webhooktest: the registry's configurations do not load: %v", err)
	}
	res, err := d.Admit(context.Background(), dispatchRequest(req))
	if err != nil {
		t.Fatalf("webhooktest: admitting %s %s: %v", req.Operation, req.Name, err)
	}
	return resultOf(res)
}

func nonNil[T any](c *T) []*T {
	if c == nil {
		return nil
	}
	return []*T{c}
}

// dispatchRequest is the API request a webhook request describes.
func dispatchRequest(req *webhook.Request) *engine.Request {
	kind := req.Kind
	if req.RequestKind != nil {
		kind = *req.RequestKind
	}
	resource := req.Resource
	if req.RequestResource != nil {
		resource = *req.RequestResource
	}
	return &engine.Request{
		Kind:        schema.GroupVersionKind{Group: kind.Group, Version: kind.Version, Kind: kind.Kind},
		Resource:    schema.GroupVersionResource{Group: resource.Group, Version: resource.Version, Resource: resource.Resource},
		SubResource: req.SubResource, Name: req.Name, Namespace: req.Namespace, Operation: req.Operation,
		DryRun: req.DryRun != nil && *req.DryRun, UserInfo: req.UserInfo, Object: req.Object.Raw, OldObject: req.OldObject.Raw,
	}
}

// inProcess carries the dispatcher's calls to a handler without a network.
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

var _ http.RoundTripper = inProcess{}
