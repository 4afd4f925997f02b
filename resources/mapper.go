package resources

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// Mapper answers what kube-apiserver's resource registry answers: the kind of a resource or
// subresource, the resource of a kind, a resource's scope and verbs, and which resources are
// equivalent. A Mapper never changes once built (WithCRDs returns a new one), so it is safe for
// concurrent use.
type Mapper struct {
	serverVersion string
	// entries are sorted by group, version (most preferred first) and resource.
	entries []*entry
	byGVR   map[schema.GroupVersionResource]*entry
	// byKind holds served resources only: a kind maps to the resource clients use for it.
	byKind map[schema.GroupVersionKind]*entry
	// equivalents maps each group-resource to its equivalence class, in the order the apiserver
	// registered the class's members. Group-resources that share storage share one class.
	equivalents map[schema.GroupResource][]schema.GroupVersionResource
}

// entry is one group-version-resource a Mapper knows.
type entry struct {
	Resource
	// served is false for a version a CustomResourceDefinition lists but does not serve. The
	// apiserver still registers its kind and counts it among the equivalents, so the Mapper does
	// too; only Resource and ResourceFor refuse it.
	served bool
}

// newMapper validates and indexes entries, taking them over: it sorts their verbs and
// subresources in place, so callers pass entries nobody else holds. classes lists the equivalence classes in the
// apiserver's order; a group-resource in no class must have a single version, and is equivalent
// only to itself.
func newMapper(serverVersion string, entries []*entry, classes [][]schema.GroupVersionResource) (*Mapper, error) {
	m := &Mapper{
		serverVersion: serverVersion,
		entries:       make([]*entry, 0, len(entries)),
		byGVR:         make(map[schema.GroupVersionResource]*entry, len(entries)),
		byKind:        make(map[schema.GroupVersionKind]*entry, len(entries)),
		equivalents:   make(map[schema.GroupResource][]schema.GroupVersionResource, len(entries)),
	}
	for _, e := range entries {
		if err := m.add(e); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(m.entries, func(a, b *entry) int { return compareGVR(a.GVR, b.GVR) })

	for _, class := range classes {
		if err := m.addClass(class); err != nil {
			return nil, err
		}
	}
	// Whatever no class names stands alone, which is only unambiguous for a single version.
	for _, e := range m.entries {
		gr := e.GVR.GroupResource()
		if _, ok := m.equivalents[gr]; ok {
			continue
		}
		var versions []string
		for _, other := range m.entries {
			if other.GVR.GroupResource() == gr {
				versions = append(versions, other.GVR.Version)
			}
		}
		if len(versions) > 1 {
			return nil, fmt.Errorf("resource %q in group %q has versions %s but no equivalence order", gr.Resource, gr.Group, strings.Join(versions, ", "))
		}
		m.equivalents[gr] = []schema.GroupVersionResource{e.GVR}
	}
	return m, nil
}

func (m *Mapper) add(e *entry) error {
	gvr := e.GVR
	where := fmt.Sprintf("resource %q in group %q version %q", gvr.Resource, gvr.Group, gvr.Version)
	switch {
	case gvr.Version == "":
		return fmt.Errorf("resource %q in group %q: version is empty", gvr.Resource, gvr.Group)
	case gvr.Resource == "" || strings.Contains(gvr.Resource, "/"):
		return fmt.Errorf("resource %q in group %q version %q: resource name must be non-empty and contain no \"/\"", gvr.Resource, gvr.Group, gvr.Version)
	case e.Kind.Kind == "" || e.Kind.Version == "":
		return fmt.Errorf("%s: kind %q is incomplete", where, e.Kind.String())
	}
	if _, dup := m.byGVR[gvr]; dup {
		return fmt.Errorf("%s is defined twice", where)
	}
	slices.Sort(e.Verbs)
	slices.SortFunc(e.Subresources, func(a, b Subresource) int { return strings.Compare(a.Name, b.Name) })
	for i, sub := range e.Subresources {
		switch {
		case sub.Name == "" || strings.Contains(sub.Name, "/"):
			return fmt.Errorf("%s: subresource name %q must be non-empty and contain no \"/\"", where, sub.Name)
		case i > 0 && e.Subresources[i-1].Name == sub.Name:
			return fmt.Errorf("%s: subresource %q is defined twice", where, sub.Name)
		case sub.Kind.Kind == "" || sub.Kind.Version == "":
			return fmt.Errorf("%s: subresource %q: kind %q is incomplete", where, sub.Name, sub.Kind.String())
		}
		slices.Sort(e.Subresources[i].Verbs)
	}
	if e.served {
		if other, dup := m.byKind[e.Kind]; dup {
			return fmt.Errorf("kind %q in group %q version %q is served by two resources, %q and %q", e.Kind.Kind, e.Kind.Group, e.Kind.Version, other.GVR.Resource, gvr.Resource)
		}
		m.byKind[e.Kind] = e
	}
	m.byGVR[gvr] = e
	m.entries = append(m.entries, e)
	return nil
}

func (m *Mapper) addClass(class []schema.GroupVersionResource) error {
	if len(class) == 0 {
		return fmt.Errorf("empty equivalence class")
	}
	for i, gvr := range class {
		if _, ok := m.byGVR[gvr]; !ok {
			return fmt.Errorf("equivalence class of %s names unknown resource %q in group %q version %q", describeGVR(class[0]), gvr.Resource, gvr.Group, gvr.Version)
		}
		if slices.Contains(class[:i], gvr) {
			return fmt.Errorf("equivalence class of %s names %s twice", describeGVR(class[0]), describeGVR(gvr))
		}
	}
	class = slices.Clip(slices.Clone(class))
	for _, gvr := range class {
		gr := gvr.GroupResource()
		if existing, ok := m.equivalents[gr]; ok && !slices.Equal(existing, class) {
			return fmt.Errorf("resource %q in group %q is in two equivalence classes", gr.Resource, gr.Group)
		}
		m.equivalents[gr] = class
	}
	// Every version of a group-resource must be in its class: the apiserver never splits them.
	for _, e := range m.entries {
		if existing, ok := m.equivalents[e.GVR.GroupResource()]; ok && !slices.Contains(existing, e.GVR) {
			return fmt.Errorf("equivalence class of %s lacks %s", describeGVR(existing[0]), describeGVR(e.GVR))
		}
	}
	return nil
}

// ServerVersion is the version of the kube-apiserver the Mapper's data came from, e.g.
// "v1.36.3".
func (m *Mapper) ServerVersion() string { return m.serverVersion }

// Resources returns every served resource, sorted by group, version (the preferred version of a
// group first) and resource.
func (m *Mapper) Resources() []Resource {
	out := make([]Resource, 0, len(m.entries))
	for _, e := range m.entries {
		if e.served {
			out = append(out, e.clone())
		}
	}
	return out
}

// Resource returns the served resource gvr.
func (m *Mapper) Resource(gvr schema.GroupVersionResource) (Resource, error) {
	e, err := m.lookup(gvr)
	if err != nil {
		return Resource{}, err
	}
	if !e.served {
		return Resource{}, &NotFoundError{Resource: gvr, NotServed: true, hint: m.servedVersionsHint(gvr.GroupResource())}
	}
	return e.clone(), nil
}

// ResourceFor returns the served resource whose objects are of kind gvk, e.g. apps/v1
// deployments for apps/v1 Deployment. Kinds that are only subresource kinds (Scale, Eviction,
// PodExecOptions) have no resource.
func (m *Mapper) ResourceFor(gvk schema.GroupVersionKind) (Resource, error) {
	if e, ok := m.byKind[gvk]; ok {
		return e.clone(), nil
	}
	err := &NotFoundError{Kind: gvk, UnknownGroup: true}
	// A typo is a character or two off in a long name, one in a short name.
	near, nearDistance := "", max(1, len(gvk.Kind)/4)+1
	for _, e := range m.entries {
		if !e.served || e.Kind.Group != gvk.Group {
			continue
		}
		err.UnknownGroup = false
		if e.Kind.Kind == gvk.Kind {
			// The kind in other versions: name them in the order the apiserver prefers.
			err.hint = m.servedVersionsHint(e.GVR.GroupResource())
			return Resource{}, err
		}
		if strings.EqualFold(e.Kind.Kind, gvk.Kind) && e.Kind.Version == gvk.Version {
			err.hint = fmt.Sprintf("kinds are case-sensitive: did you mean %q?", e.Kind.Kind)
		}
		if d := editDistance(strings.ToLower(e.Kind.Kind), strings.ToLower(gvk.Kind), nearDistance); d < nearDistance {
			near, nearDistance = e.Kind.Kind+" ("+e.Kind.GroupVersion().String()+")", d
		}
	}
	if err.hint == "" && near != "" {
		err.hint = "did you mean " + near + "?"
	}
	return Resource{}, err
}

// editDistance is the Levenshtein distance of a and b, or limit when it is limit or more: close
// enough to be a typo, or not.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return min(prev[len(b)], limit)
}

// KindFor returns the kind registered for resource gvr, or for its subresource when subresource
// is not empty: the kind the apiserver sends to an admission webhook for a request to that
// (sub)resource. Like the apiserver, it also answers for versions a CustomResourceDefinition
// lists but does not serve.
func (m *Mapper) KindFor(gvr schema.GroupVersionResource, subresource string) (schema.GroupVersionKind, error) {
	e, err := m.lookup(gvr)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	if subresource == "" {
		return e.Kind, nil
	}
	sub, ok := e.Subresource(subresource)
	if !ok {
		names := make([]string, len(e.Subresources))
		for i, s := range e.Subresources {
			names[i] = s.Name
		}
		hint := "it has no subresources"
		if len(names) > 0 {
			hint = "it has " + strings.Join(names, ", ")
		}
		return schema.GroupVersionKind{}, &NotFoundError{Resource: gvr, Subresource: subresource, hint: hint}
	}
	return sub.Kind, nil
}

// Equivalents returns the resources equivalent to gvr for requests to subresource ("" for the
// resource itself): every version of the same resource, and resources of other groups stored in
// the same place (core/v1 and events.k8s.io/v1 events). The list includes gvr itself and keeps
// the apiserver's registration order, which decides the match when a webhook rule with
// matchPolicy Equivalent names several of them; a member lacking subresource is left out. As in
// the apiserver, only gvr's group and resource are consulted, not its version. Unknown resources
// have no equivalents (nil).
func (m *Mapper) Equivalents(gvr schema.GroupVersionResource, subresource string) []schema.GroupVersionResource {
	class := m.equivalents[gvr.GroupResource()]
	var out []schema.GroupVersionResource
	for _, member := range class {
		if subresource != "" {
			if _, ok := m.byGVR[member].Subresource(subresource); !ok {
				continue
			}
		}
		out = append(out, member)
	}
	return out
}

// lookup finds gvr, served or not.
func (m *Mapper) lookup(gvr schema.GroupVersionResource) (*entry, error) {
	if e, ok := m.byGVR[gvr]; ok {
		return e, nil
	}
	err := &NotFoundError{Resource: gvr}
	if hint := m.servedVersionsHint(gvr.GroupResource()); hint != "" {
		err.hint = hint
		return nil, err
	}
	for _, e := range m.entries {
		if e.GVR.Group != gvr.Group || !e.served {
			continue
		}
		// "pod", "Deployment" and "Pods" are common slips for "pods" and "deployments".
		if strings.EqualFold(gvr.Resource, e.Kind.Kind) || strings.EqualFold(gvr.Resource, e.GVR.Resource) {
			err.hint = fmt.Sprintf("resource names are lower-case plurals: did you mean %q?", e.GVR.Resource)
			break
		}
	}
	return nil, err
}

// servedVersionsHint names the versions gr is served in, or "" when it is served in none.
func (m *Mapper) servedVersionsHint(gr schema.GroupResource) string {
	var versions []string
	for _, gvr := range m.equivalents[gr] {
		if gvr.GroupResource() == gr && m.byGVR[gvr].served {
			versions = append(versions, gvr.Version)
		}
	}
	if len(versions) == 0 {
		return ""
	}
	return "served in " + pluralize("version", len(versions)) + " " + strings.Join(versions, ", ")
}

func pluralize(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func describeGVR(gvr schema.GroupVersionResource) string {
	return fmt.Sprintf("resource %q in group %q version %q", gvr.Resource, gvr.Group, gvr.Version)
}

// compareGVR orders by group, then version with the most preferred first (v2, v1, v1beta1,
// v1alpha1, then non-Kubernetes version strings), then resource.
func compareGVR(a, b schema.GroupVersionResource) int {
	return cmp.Or(
		strings.Compare(a.Group, b.Group),
		-version.CompareKubeAwareVersionStrings(a.Version, b.Version),
		strings.Compare(a.Resource, b.Resource),
	)
}
