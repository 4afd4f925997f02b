package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/resources"
)

// placeholderNamespace is the namespace kubebuilder's and controller-gen's bases put their
// objects and webhook Services in, for an overlay (config/default) to replace along with a
// name prefix. Nothing is installed there.
const placeholderNamespace = "system"

// kustomization is what lint needs of a kustomization: which files it reads, and whether its
// build changes what lint would read from them.
type kustomization struct {
	Namespace             string   `json:"namespace"`
	NamePrefix            string   `json:"namePrefix"`
	NameSuffix            string   `json:"nameSuffix"`
	Resources             []string `json:"resources"`
	Bases                 []string `json:"bases"`
	Components            []string `json:"components"`
	PatchesStrategicMerge []string `json:"patchesStrategicMerge"`
	Patches               []struct {
		Path string `json:"path"`
	} `json:"patches"`
	PatchesJSON6902 []struct {
		Path string `json:"path"`
	} `json:"patchesJson6902"`
	Replacements []json.RawMessage `json:"replacements"`

	file string // where it was read from
	dir  string
}

// findKustomization reads the kustomization of dir, nil when it has none.
func findKustomization(dir string) (*kustomization, error) {
	for _, name := range kustomizationNames() {
		file := filepath.Join(dir, name)
		data, err := os.ReadFile(file)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		k := &kustomization{file: file, dir: dir}
		if err := yaml.Unmarshal(data, k); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return k, nil
	}
	return nil, nil
}

// lists says whether the kustomization reads file as a resource (resource) or as a patch.
func (k *kustomization) lists(file string) (resource, patch bool) {
	same := func(entry string) bool {
		return entry != "" && filepath.Clean(filepath.Join(k.dir, entry)) == filepath.Clean(file)
	}
	for _, list := range [][]string{k.Resources, k.Bases, k.Components} {
		for _, e := range list {
			if same(e) {
				return true, false
			}
		}
	}
	for _, e := range k.PatchesStrategicMerge {
		if same(e) {
			return false, true
		}
	}
	for _, p := range k.Patches {
		if same(p.Path) {
			return false, true
		}
	}
	for _, p := range k.PatchesJSON6902 {
		if same(p.Path) {
			return false, true
		}
	}
	return false, false
}

// unbuiltBase is a kustomization whose files were given to lint although its build changes
// them, and the first thing that shows it.
type unbuiltBase struct {
	k      *kustomization
	reason string
}

// checkUnbuiltKustomizations refuses to lint the files of a kustomization whose build is not
// what they say: a base's placeholders (kubebuilder's "system" namespace, names an overlay
// prefixes) would be reported as if they were installed, and fail-closed webhooks that the
// overlays patch as if they had no selector. The files of a kustomization that only lists them
// (the build is the files) are linted as they are.
func checkUnbuiltKustomizations(inputs []*lintInput, set *config.Set) error {
	byFile := objectsByFile(set)
	seen := map[string]bool{}
	var bases []unbuiltBase
	for _, in := range inputs {
		if in.arg == "-" {
			continue
		}
		if !in.dir && isKustomizationName(filepath.Base(in.arg)) {
			return fmt.Errorf("%s is a kustomization, not the objects it builds: lint its build: kustomize build %s | admit lint -", in.arg, filepath.Dir(in.arg))
		}
		for _, file := range in.files {
			dir := filepath.Dir(file)
			if seen[dir] {
				continue
			}
			k, err := findKustomization(dir)
			if err != nil {
				return err
			}
			seen[dir] = true
			if k == nil {
				continue
			}
			if reason := k.changes(in.files, byFile); reason != "" {
				bases = append(bases, unbuiltBase{k: k, reason: reason})
			}
		}
	}
	if len(bases) == 0 {
		return nil
	}
	advice := fmt.Sprintf("lint what kustomize builds from the overlay you apply: kustomize build %s | admit lint -", suggestedOverlay(bases))
	if len(bases) == 1 {
		return fmt.Errorf("%s holds kustomize's input, not what is applied: %s; %s", bases[0].k.dir, bases[0].reason, advice)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "these directories hold kustomize's input, not what is applied; %s", advice)
	for _, base := range bases {
		fmt.Fprintf(&b, "\n  %s: %s", base.k.dir, base.reason)
	}
	return errors.New(b.String())
}

// suggestedOverlay names the overlay to build when the layout says which (kubebuilder's
// config/default beside config/webhook), else OVERLAY.
func suggestedOverlay(bases []unbuiltBase) string {
	for _, base := range bases {
		candidate := filepath.Join(base.k.dir, "..", "default")
		if k, err := findKustomization(candidate); err == nil && k != nil {
			return candidate
		}
	}
	return "OVERLAY"
}

// changes says how the build of k changes the files among files it reads, "" when it does not
// change what lint reads from them.
func (k *kustomization) changes(files []string, byFile map[string][]baseObject) string {
	var listed []string
	for _, f := range files {
		if filepath.Dir(f) != k.dir {
			continue
		}
		resource, patch := k.lists(f)
		if patch {
			return fmt.Sprintf("%s is a patch that kustomize applies to other objects", f)
		}
		if resource {
			listed = append(listed, f)
		}
	}
	if len(listed) == 0 {
		return ""
	}
	for _, f := range listed {
		for _, obj := range byFile[f] {
			if where := obj.namespaceUse(placeholderNamespace); where != "" {
				return fmt.Sprintf("%s: %s %q, the placeholder an overlay replaces (with a name prefix)", obj.source, where, placeholderNamespace)
			}
		}
	}
	switch {
	case k.NamePrefix != "" || k.NameSuffix != "":
		return fmt.Sprintf("kustomize build renames the objects (namePrefix %q, nameSuffix %q)", k.NamePrefix, k.NameSuffix)
	case len(k.Patches)+len(k.PatchesStrategicMerge)+len(k.PatchesJSON6902) > 0:
		return "kustomize build patches the objects"
	case len(k.Replacements) > 0:
		return "kustomize build replaces fields of the objects"
	case len(k.Components) > 0:
		return "kustomize build adds components to the objects"
	}
	if k.Namespace != "" {
		mapper, err := resources.Builtin()
		if err != nil {
			return ""
		}
		for _, f := range listed {
			for _, obj := range byFile[f] {
				if where := obj.otherNamespace(k.Namespace, mapper); where != "" {
					return fmt.Sprintf("kustomize build puts its objects in namespace %q (%s: %s)", k.Namespace, obj.source, where)
				}
			}
		}
	}
	return ""
}

// baseObject is what the kustomization check reads of a loaded object.
type baseObject struct {
	source                 config.Source
	apiVersion, kind, name string
	namespace              string
	// services are the namespaces of the Services a webhook configuration calls.
	services []string
}

func objectsByFile(set *config.Set) map[string][]baseObject {
	out := map[string][]baseObject{}
	add := func(source config.Source, kind, name, namespace string, webhooks []admissionregistrationv1.WebhookClientConfig) {
		o := baseObject{source: source, apiVersion: "admissionregistration.k8s.io/v1", kind: kind, name: name, namespace: namespace}
		for _, cc := range webhooks {
			if cc.Service != nil {
				o.services = append(o.services, cc.Service.Namespace)
			}
		}
		out[source.File] = append(out[source.File], o)
	}
	for _, m := range set.Mutating {
		var ccs []admissionregistrationv1.WebhookClientConfig
		for _, w := range m.Config.Webhooks {
			ccs = append(ccs, w.ClientConfig)
		}
		add(m.Source, "MutatingWebhookConfiguration", m.Config.Name, m.Config.Namespace, ccs)
	}
	for _, v := range set.Validating {
		var ccs []admissionregistrationv1.WebhookClientConfig
		for _, w := range v.Config.Webhooks {
			ccs = append(ccs, w.ClientConfig)
		}
		add(v.Source, "ValidatingWebhookConfiguration", v.Config.Name, v.Config.Namespace, ccs)
	}
	for _, o := range set.Others {
		out[o.Source.File] = append(out[o.Source.File], baseObject{source: o.Source, apiVersion: o.Object.GetAPIVersion(),
			kind: o.Object.GetKind(), name: o.Object.GetName(), namespace: o.Object.GetNamespace()})
	}
	return out
}

// namespaceUse says how the object uses namespace, "" when it does not.
func (o baseObject) namespaceUse(namespace string) string {
	if o.namespace == namespace {
		return fmt.Sprintf("%s %q is in namespace", o.kind, o.name)
	}
	for _, ns := range o.services {
		if ns == namespace {
			return fmt.Sprintf("%s %q calls a Service in namespace", o.kind, o.name)
		}
	}
	return ""
}

// otherNamespace says how the object differs from what kustomize's namespace transformer makes
// of it: a namespace other than namespace, none for a namespaced built-in kind, a webhook
// Service elsewhere. Kinds lint does not know are taken as namespaced when they name a
// namespace, and left alone when they do not: they may be cluster-scoped.
func (o baseObject) otherNamespace(namespace string, mapper *resources.Mapper) string {
	for _, ns := range o.services {
		if ns != namespace {
			return fmt.Sprintf("%s %q calls a Service in namespace %q", o.kind, o.name, ns)
		}
	}
	r, err := mapper.ResourceFor(schema.FromAPIVersionAndKind(o.apiVersion, o.kind))
	known := err == nil
	switch {
	case known && !r.Namespaced:
		return "" // the transformer leaves cluster-scoped objects alone
	case o.namespace != "" && o.namespace != namespace:
		return fmt.Sprintf("%s %q is in namespace %q", o.kind, o.name, o.namespace)
	case o.namespace == "" && known:
		return fmt.Sprintf("%s %q names no namespace", o.kind, o.name)
	}
	return ""
}
