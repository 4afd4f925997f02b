package resources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The JSON form of a Mapper, as in kube-1.36.json. Kinds are stored as in discovery: a bare kind
// name lives in the resource's own group and version, and kindAPIVersion is given only when it
// does not.
type document struct {
	ServerVersion string             `json:"serverVersion"`
	Resources     []documentResource `json:"resources"`
	Equivalents   [][]documentGVR    `json:"equivalents"`
}

type documentResource struct {
	Group          string                `json:"group"`
	Version        string                `json:"version"`
	Resource       string                `json:"resource"`
	Kind           string                `json:"kind"`
	KindAPIVersion string                `json:"kindAPIVersion,omitempty"`
	Namespaced     bool                  `json:"namespaced"`
	NotServed      bool                  `json:"notServed,omitempty"`
	Verbs          []string              `json:"verbs"`
	Subresources   []documentSubresource `json:"subresources,omitempty"`
}

type documentSubresource struct {
	Name           string   `json:"name"`
	Kind           string   `json:"kind"`
	KindAPIVersion string   `json:"kindAPIVersion,omitempty"`
	Verbs          []string `json:"verbs"`
	Connect        bool     `json:"connect,omitempty"`
}

type documentGVR struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// FromJSON builds a Mapper from the JSON that MarshalJSON writes, such as a snapshot of a
// cluster's resources taken with FromDiscovery. Unknown fields are errors, so that a typo cannot
// silently drop data.
func FromJSON(data []byte) (*Mapper, error) {
	var doc document
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding resource data: %w", err)
	}
	if decoder.More() {
		return nil, fmt.Errorf("decoding resource data: unexpected data after the JSON object")
	}
	entries := make([]*entry, 0, len(doc.Resources))
	for i, r := range doc.Resources {
		gv := schema.GroupVersion{Group: r.Group, Version: r.Version}
		kind, err := kindFromDocument(gv, r.KindAPIVersion, r.Kind)
		if err != nil {
			return nil, fmt.Errorf("resources[%d] (%q): %w", i, r.Resource, err)
		}
		e := &entry{
			Resource: Resource{
				GVR:        gv.WithResource(r.Resource),
				Kind:       kind,
				Namespaced: r.Namespaced,
				Verbs:      slices.Clone(r.Verbs),
			},
			served: !r.NotServed,
		}
		for j, s := range r.Subresources {
			kind, err := kindFromDocument(gv, s.KindAPIVersion, s.Kind)
			if err != nil {
				return nil, fmt.Errorf("resources[%d] (%q) subresources[%d] (%q): %w", i, r.Resource, j, s.Name, err)
			}
			e.Subresources = append(e.Subresources, Subresource{Name: s.Name, Kind: kind, Verbs: slices.Clone(s.Verbs), Connect: s.Connect})
		}
		entries = append(entries, e)
	}
	classes := make([][]schema.GroupVersionResource, 0, len(doc.Equivalents))
	for _, c := range doc.Equivalents {
		class := make([]schema.GroupVersionResource, len(c))
		for i, m := range c {
			class[i] = schema.GroupVersionResource{Group: m.Group, Version: m.Version, Resource: m.Resource}
		}
		classes = append(classes, class)
	}
	m, err := newMapper(doc.ServerVersion, entries, classes)
	if err != nil {
		return nil, fmt.Errorf("resource data: %w", err)
	}
	return m, nil
}

func kindFromDocument(gv schema.GroupVersion, apiVersion, kind string) (schema.GroupVersionKind, error) {
	if apiVersion == "" {
		return gv.WithKind(kind), nil
	}
	kindGV, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("kindAPIVersion: %w", err)
	}
	return kindGV.WithKind(kind), nil
}

func kindToDocument(gv schema.GroupVersion, kind schema.GroupVersionKind) (apiVersion, name string) {
	if kind.GroupVersion() == gv {
		return "", kind.Kind
	}
	return kind.GroupVersion().String(), kind.Kind
}

// MarshalJSON writes the Mapper as indented JSON that FromJSON reads back: resources in the
// order of Resources, each on its own lines so that a change of Kubernetes version reads well
// as a diff, and the equivalence classes of more than one member in the apiserver's order.
func (m *Mapper) MarshalJSON() ([]byte, error) {
	doc := document{ServerVersion: m.serverVersion, Resources: []documentResource{}, Equivalents: [][]documentGVR{}}
	for _, e := range m.entries {
		gv := e.GVR.GroupVersion()
		r := documentResource{
			Group:      gv.Group,
			Version:    gv.Version,
			Resource:   e.GVR.Resource,
			Namespaced: e.Namespaced,
			NotServed:  !e.served,
			Verbs:      nonNil(e.Verbs),
		}
		r.KindAPIVersion, r.Kind = kindToDocument(gv, e.Kind)
		for _, s := range e.Subresources {
			ds := documentSubresource{Name: s.Name, Verbs: nonNil(s.Verbs), Connect: s.Connect}
			ds.KindAPIVersion, ds.Kind = kindToDocument(gv, s.Kind)
			r.Subresources = append(r.Subresources, ds)
		}
		doc.Resources = append(doc.Resources, r)
	}
	for _, class := range m.classes() {
		if len(class) < 2 {
			continue
		}
		members := make([]documentGVR, len(class))
		for i, gvr := range class {
			members[i] = documentGVR{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource}
		}
		doc.Equivalents = append(doc.Equivalents, members)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding resource data: %w", err)
	}
	return append(out, '\n'), nil
}

// classes returns each equivalence class once, ordered by its first member.
func (m *Mapper) classes() [][]schema.GroupVersionResource {
	var out [][]schema.GroupVersionResource
	seen := map[schema.GroupVersionResource]bool{}
	for _, e := range m.entries {
		class := m.equivalents[e.GVR.GroupResource()]
		if seen[class[0]] {
			continue
		}
		seen[class[0]] = true
		out = append(out, class)
	}
	slices.SortFunc(out, func(a, b []schema.GroupVersionResource) int { return compareGVR(a[0], b[0]) })
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
