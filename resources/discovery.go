package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// FromDiscovery builds a Mapper of what a live apiserver serves: every version of every group
// (not only the preferred ones), with the subresources and kinds discovery reports. Equivalence
// follows the same rule as the built-in data: every version of a group-resource, plus the core
// and events.k8s.io events that share storage.
//
// Discovery does not say which subresources are CONNECT subresources, so FromDiscovery reads the
// OpenAPI v3 documents of the group-versions that may have one (where a subresource's kind is
// another kind of the same group-version, as connect options kinds are) and looks for operations
// marked "x-kubernetes-action: connect".
//
// Discovery cannot tell everything the apiserver knows about custom resources: versions a CRD
// does not serve are absent, and their versions come in discovery's order rather than the CRD's.
// Add CRDs with WithCRDs to a Mapper instead for the exact picture.
//
// When some group-versions cannot be read (an aggregated API server is down, say), FromDiscovery
// returns a Mapper of everything else together with an error naming what failed; callers may use
// the Mapper if partial data will do.
func FromDiscovery(client discovery.DiscoveryInterface) (*Mapper, error) {
	info, err := client.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	groups, lists, err := client.ServerGroupsAndResources()
	var problems []error
	if err != nil {
		if !discovery.IsGroupDiscoveryFailedError(err) {
			return nil, fmt.Errorf("reading discovery: %w", err)
		}
		problems = append(problems, fmt.Errorf("reading discovery: %w", err))
	}
	listByGV := make(map[string]*metav1.APIResourceList, len(lists))
	for _, list := range lists {
		if list != nil {
			listByGV[list.GroupVersion] = list
		}
	}

	var entries []*entry
	// Classes gather in discovery's order: the core group first, as the apiserver installs it,
	// then each group's versions by priority, the order the apiserver installs them in.
	var classKeys []schema.GroupResource
	classByKey := map[schema.GroupResource][]schema.GroupVersionResource{}
	for _, group := range groups {
		for _, version := range group.Versions {
			list, ok := listByGV[version.GroupVersion]
			if !ok {
				continue // reported by ServerGroupsAndResources
			}
			gv, err := schema.ParseGroupVersion(version.GroupVersion)
			if err != nil {
				return nil, fmt.Errorf("discovery lists group-version %q: %w", version.GroupVersion, err)
			}
			gvEntries, err := entriesFromDiscovery(gv, list.APIResources)
			if err != nil {
				return nil, err
			}
			for _, e := range gvEntries {
				key := storageKey(e.GVR.GroupResource())
				if _, seen := classByKey[key]; !seen {
					classKeys = append(classKeys, key)
				}
				classByKey[key] = append(classByKey[key], e.GVR)
			}
			entries = append(entries, gvEntries...)
		}
	}
	if err := markConnectSubresources(client, entries); err != nil {
		problems = append(problems, err)
	}
	classes := make([][]schema.GroupVersionResource, len(classKeys))
	for i, key := range classKeys {
		classes[i] = classByKey[key]
	}
	m, err := newMapper(info.GitVersion, entries, classes)
	if err != nil {
		return nil, fmt.Errorf("discovery of %s: %w", info.GitVersion, err)
	}
	return m, errors.Join(problems...)
}

// storageKey names where the apiserver stores a group-resource. The apiserver counts resources
// as equivalent when they share storage; for its own resources that is every version of a
// group-resource, and core events with events.k8s.io events, which were moved to a group of
// their own but still live where core events do. (Other shared storage in the apiserver's code,
// e.g. apps and extensions deployments, concerns groups Kubernetes no longer serves.)
func storageKey(gr schema.GroupResource) schema.GroupResource {
	if gr == (schema.GroupResource{Group: "events.k8s.io", Resource: "events"}) {
		return schema.GroupResource{Resource: "events"}
	}
	return gr
}

// entriesFromDiscovery turns one group-version's discovery list into entries, attaching each
// "parent/sub" item to its parent.
func entriesFromDiscovery(gv schema.GroupVersion, items []metav1.APIResource) ([]*entry, error) {
	var entries []*entry
	byName := map[string]*entry{}
	for _, item := range items {
		if strings.Contains(item.Name, "/") {
			continue
		}
		e := &entry{
			Resource: Resource{
				GVR:        gv.WithResource(item.Name),
				Kind:       discoveredKind(gv, item),
				Namespaced: item.Namespaced,
				Verbs:      slices.Clone(item.Verbs),
			},
			served: true,
		}
		if _, dup := byName[item.Name]; dup {
			return nil, fmt.Errorf("discovery of %s lists resource %q twice", gv, item.Name)
		}
		byName[item.Name] = e
		entries = append(entries, e)
	}
	for _, item := range items {
		parent, sub, ok := strings.Cut(item.Name, "/")
		if !ok {
			continue
		}
		e, found := byName[parent]
		if !found {
			return nil, fmt.Errorf("discovery of %s lists subresource %q of unlisted resource %q", gv, item.Name, parent)
		}
		e.Subresources = append(e.Subresources, Subresource{Name: sub, Kind: discoveredKind(gv, item), Verbs: slices.Clone(item.Verbs)})
	}
	return entries, nil
}

// discoveredKind reads a discovery item's kind, which names a group and version only when they
// differ from the group-version being listed (pods/eviction is policy/v1 Eviction).
func discoveredKind(gv schema.GroupVersion, item metav1.APIResource) schema.GroupVersionKind {
	if item.Version == "" {
		return gv.WithKind(item.Kind)
	}
	return schema.GroupVersionKind{Group: item.Group, Version: item.Version, Kind: item.Kind}
}

// markConnectSubresources sets Subresource.Connect from the OpenAPI v3 documents of the
// group-versions that may have connect subresources: those where some subresource's kind is a
// different kind of the same group-version. Every other subresource takes its parent's kind or
// one of another group (Scale, Eviction, TokenRequest), and no document needs fetching for it.
func markConnectSubresources(client discovery.DiscoveryInterface, entries []*entry) error {
	candidates := map[schema.GroupVersion][]*entry{}
	var order []schema.GroupVersion
	for _, e := range entries {
		gv := e.GVR.GroupVersion()
		for _, sub := range e.Subresources {
			if sub.Kind.GroupVersion() == gv && sub.Kind.Kind != e.Kind.Kind {
				if _, seen := candidates[gv]; !seen {
					order = append(order, gv)
				}
				candidates[gv] = append(candidates[gv], e)
				break
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	paths, err := client.OpenAPIV3().Paths()
	if err != nil {
		return fmt.Errorf("listing OpenAPI v3 documents to find CONNECT subresources: %w", err)
	}
	var problems []error
	for _, gv := range order {
		prefix := "apis/" + gv.Group + "/" + gv.Version
		if gv.Group == "" {
			prefix = "api/" + gv.Version
		}
		doc, ok := paths[prefix]
		if !ok {
			problems = append(problems, fmt.Errorf("no OpenAPI v3 document for %s to find CONNECT subresources in", gv))
			continue
		}
		body, err := doc.Schema(runtime.ContentTypeJSON)
		if err != nil {
			problems = append(problems, fmt.Errorf("reading the OpenAPI v3 document of %s: %w", gv, err))
			continue
		}
		connect, err := connectSubresources(body, "/"+prefix+"/")
		if err != nil {
			problems = append(problems, fmt.Errorf("OpenAPI v3 document of %s: %w", gv, err))
			continue
		}
		for _, e := range candidates[gv] {
			for i := range e.Subresources {
				e.Subresources[i].Connect = connect[e.GVR.Resource+"/"+e.Subresources[i].Name]
			}
		}
	}
	return errors.Join(problems...)
}

// openAPIDocument is the part of an OpenAPI v3 document that tells connect operations apart.
type openAPIDocument struct {
	Paths map[string]openAPIPathItem `json:"paths"`
}

type openAPIPathItem struct {
	Get     *openAPIOperation `json:"get"`
	Put     *openAPIOperation `json:"put"`
	Post    *openAPIOperation `json:"post"`
	Delete  *openAPIOperation `json:"delete"`
	Options *openAPIOperation `json:"options"`
	Head    *openAPIOperation `json:"head"`
	Patch   *openAPIOperation `json:"patch"`
}

type openAPIOperation struct {
	// Action is the apiserver's verb for the operation: "connect" for connecters.
	Action string `json:"x-kubernetes-action"`
}

// connectSubresources returns the "resource/subresource" names that have a connect operation
// among the paths under prefix, e.g. "pods/exec" from
// /api/v1/namespaces/{namespace}/pods/{name}/exec.
func connectSubresources(doc []byte, prefix string) (map[string]bool, error) {
	var parsed openAPIDocument
	if err := json.Unmarshal(doc, &parsed); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	out := map[string]bool{}
	for path, item := range parsed.Paths {
		if !item.connects() {
			continue
		}
		rest, ok := strings.CutPrefix(path, prefix)
		if !ok {
			continue
		}
		rest = strings.TrimPrefix(rest, "namespaces/{namespace}/")
		// resource/{name}/subresource, maybe followed by /{path}
		parts := strings.Split(rest, "/")
		if len(parts) < 3 || parts[1] != "{name}" {
			continue
		}
		out[parts[0]+"/"+parts[2]] = true
	}
	return out, nil
}

func (p openAPIPathItem) connects() bool {
	for _, op := range []*openAPIOperation{p.Get, p.Put, p.Post, p.Delete, p.Options, p.Head, p.Patch} {
		if op != nil && op.Action == "connect" {
			return true
		}
	}
	return false
}
