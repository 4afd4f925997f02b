package chain

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdopenapi "k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

// apiSchemas are the OpenAPI v3 schemas kube-apiserver publishes under /openapi/v3: the built-in
// types' (from Kubernetes' generated definitions, named and tagged with their kinds as the
// apiserver names them) and each CRD version's. The mutating admission policy plugin reads them
// through discovery to apply its ApplyConfiguration mutations.
type apiSchemas struct {
	crds []*apiextensionsv1.CustomResourceDefinition

	once     sync.Once
	builtin  map[string]*spec.Schema
	buildErr error

	mu   sync.Mutex
	docs map[schema.GroupVersion][]byte

	// beforeListing, when set, runs as a client starts listing the documents: tests slow the
	// listing with it.
	beforeListing func()
}

func newAPISchemas(crds []*apiextensionsv1.CustomResourceDefinition, beforeListing func()) *apiSchemas {
	return &apiSchemas{crds: crds, docs: map[schema.GroupVersion][]byte{}, beforeListing: beforeListing}
}

// builtinSchemas builds the schemas of the kinds the apiserver serves, and of what they refer
// to, once.
func (a *apiSchemas) builtinSchemas() (map[string]*spec.Schema, error) {
	a.once.Do(func() {
		scheme, _ := kubeScheme()
		namer := openapinamer.NewDefinitionNamer(scheme)
		config := &common.OpenAPIV3Config{GetDefinitions: generatedopenapi.GetOpenAPIDefinitions, GetDefinitionName: namer.GetDefinitionName}
		definitions := generatedopenapi.GetOpenAPIDefinitions(func(string) spec.Ref { return spec.Ref{} })
		seen := map[string]bool{}
		var names []string
		for gvk := range scheme.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal {
				continue
			}
			name, err := scheme.ToOpenAPIDefinitionName(gvk)
			if err != nil || seen[name] {
				continue
			}
			if _, ok := definitions[name]; ok {
				seen[name] = true
				names = append(names, name)
			}
		}
		sort.Strings(names)
		a.builtin, a.buildErr = builder3.BuildOpenAPIDefinitionsForResources(config, names...)
	})
	return a.builtin, a.buildErr
}

// document is the OpenAPI v3 document of a group version, as JSON.
func (a *apiSchemas) document(gv schema.GroupVersion) ([]byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if doc, ok := a.docs[gv]; ok {
		return doc, nil
	}
	builtin, err := a.builtinSchemas()
	if err != nil {
		return nil, fmt.Errorf("building the built-in types' OpenAPI schemas: %w", err)
	}
	schemas := make(map[string]*spec.Schema, len(builtin))
	for name, s := range builtin {
		schemas[name] = s
	}
	for _, crd := range a.crds {
		if crd.Spec.Group != gv.Group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name != gv.Version || !v.Served {
				continue
			}
			built, err := crdopenapi.BuildOpenAPIV3(crd, v.Name, crdopenapi.Options{V2: false})
			if err != nil {
				return nil, fmt.Errorf("the OpenAPI schema of CustomResourceDefinition %q version %s: %w", crd.Name, v.Name, err)
			}
			for name, s := range built.Components.Schemas {
				schemas[name] = s
			}
		}
	}
	doc, err := json.Marshal(&spec3.OpenAPI{Version: "3.0.0", Components: &spec3.Components{Schemas: schemas}})
	if err != nil {
		return nil, err
	}
	a.docs[gv] = doc
	return doc, nil
}

// client is an openapi.Client serving the documents: every group version of the scheme and of
// the CRDs.
func (a *apiSchemas) client() *schemaClient {
	return &schemaClient{schemas: a, listed: make(chan struct{})}
}

type schemaClient struct {
	schemas *apiSchemas
	// listed is closed once Paths has answered. The mutating policy plugin lists the documents
	// in the background as it starts, and knows no kind's schema until it has.
	listed     chan struct{}
	listedOnce sync.Once
	// listedAt is when Paths first answered; read after listed is closed.
	listedAt time.Time
}

func (c *schemaClient) Paths() (map[string]openapi.GroupVersion, error) {
	if c.schemas.beforeListing != nil {
		c.schemas.beforeListing()
	}
	scheme, _ := kubeScheme()
	paths := map[string]openapi.GroupVersion{}
	add := func(gv schema.GroupVersion) {
		prefix := "apis/" + gv.Group + "/"
		if gv.Group == "" {
			prefix = "api/"
		}
		paths[prefix+gv.Version] = schemaDocument{c.schemas, gv}
	}
	for _, gv := range scheme.PrioritizedVersionsAllGroups() {
		add(gv)
	}
	for _, crd := range c.schemas.crds {
		for _, v := range crd.Spec.Versions {
			add(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
		}
	}
	c.listedOnce.Do(func() {
		c.listedAt = time.Now()
		close(c.listed)
	})
	return paths, nil
}

type schemaDocument struct {
	schemas *apiSchemas
	gv      schema.GroupVersion
}

func (d schemaDocument) Schema(contentType string) ([]byte, error) {
	if !strings.HasPrefix(contentType, "application/json") {
		return nil, fmt.Errorf("the OpenAPI documents are served as JSON, not %s", contentType)
	}
	return d.schemas.document(d.gv)
}

// ServerRelativeURL never changes: the documents are fixed for a chain's life.
func (d schemaDocument) ServerRelativeURL() string {
	return "/openapi/v3/" + d.gv.String()
}

// schemaClientset is the cluster's clientset whose discovery serves the OpenAPI documents.
type schemaClientset struct {
	kubernetes.Interface
	discovery discovery.DiscoveryInterface
}

func (c schemaClientset) Discovery() discovery.DiscoveryInterface { return c.discovery }

// schemaDiscovery is the clientset's discovery with OpenAPI v3.
type schemaDiscovery struct {
	discovery.DiscoveryInterface
	openapi openapi.Client
}

func (d schemaDiscovery) OpenAPIV3() openapi.Client { return d.openapi }
