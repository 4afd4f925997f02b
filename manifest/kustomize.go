package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/resources"
)

// The files of a kustomize base are kustomize's input, not what is applied: a base's
// placeholders (kubebuilder's "system" namespace, names an overlay prefixes) would be read as if
// they were installed, and its webhooks as if no overlay patched them. Files that a kustomization
// lists and that its build changes are refused, with the command that builds them; files whose
// build is the files themselves are read as they are.

// placeholderNamespace is the namespace kubebuilder's and controller-gen's bases put their
// objects and webhook Services in, for an overlay (config/default) to replace along with a name
// prefix. Nothing is installed there.
const placeholderNamespace = "system"

// kustomization is what the check needs of a kustomization: which files it reads, and whether
// its build changes them.
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

	dir string
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
		k := &kustomization{dir: dir}
		if err := yaml.Unmarshal(data, k); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return k, nil
	}
	return nil, nil
}

// lists says whether the kustomization reads file as a resource or as a patch.
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
	patches := append([]string(nil), k.PatchesStrategicMerge...)
	for _, p := range k.Patches {
		patches = append(patches, p.Path)
	}
	for _, p := range k.PatchesJSON6902 {
		patches = append(patches, p.Path)
	}
	for _, e := range patches {
		if same(e) {
			return false, true
		}
	}
	return false, false
}

// baseObject is what the check reads of an object of a kustomization's directory.
type baseObject struct {
	source                 Source
	apiVersion, kind, name string
	namespace              string
	// services are the namespaces of the Services a webhook configuration calls.
	services []string
}

func newBaseObject(o Object) baseObject {
	obj := o.Object
	b := baseObject{source: o.Source, apiVersion: obj.GetAPIVersion(), kind: obj.GetKind(), name: obj.GetName(), namespace: obj.GetNamespace()}
	if strings.HasSuffix(b.kind, "WebhookConfiguration") {
		webhooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
		for _, w := range webhooks {
			if m, ok := w.(map[string]any); ok {
				if ns, found, _ := unstructured.NestedString(m, "clientConfig", "service", "namespace"); found {
					b.services = append(b.services, ns)
				}
			}
		}
	}
	return b
}

// KustomizeCheck follows the objects of the files in kustomizations' directories as they are
// read (Add), judges each input's files once they are read (Input), and says what it found
// (Err). Read and Each run it; a caller that reads files one by one runs it itself.
type KustomizeCheck struct {
	command string
	dirs    map[string]*kustomization
	byFile  map[string][]baseObject
	checked map[string]bool
	bases   []unbuiltBase
	errs    []error
}

type unbuiltBase struct {
	k      *kustomization
	reason string
}

// KustomizeCheck is a check of the inputs' files.
func (in *Inputs) KustomizeCheck() *KustomizeCheck {
	return newKustomizeCheck(in.Options.Command)
}

func newKustomizeCheck(command string) *KustomizeCheck {
	return &KustomizeCheck{command: command, dirs: map[string]*kustomization{}, byFile: map[string][]baseObject{}, checked: map[string]bool{}}
}

// kustomizationOf is the kustomization of a file's directory, read once.
func (c *KustomizeCheck) kustomizationOf(file string) *kustomization {
	dir := filepath.Dir(file)
	k, seen := c.dirs[dir]
	if !seen {
		var err error
		if k, err = findKustomization(dir); err != nil {
			c.errs = append(c.errs, err)
		}
		c.dirs[dir] = k
	}
	return k
}

// Add notes an object read, if its file is in a kustomization's directory.
func (c *KustomizeCheck) Add(o Object) {
	file := o.Source.File
	if file == "" || strings.HasPrefix(file, "<") || c.kustomizationOf(file) == nil {
		return
	}
	c.byFile[file] = append(c.byFile[file], newBaseObject(o))
}

// Input judges the files of an input once they are read.
func (c *KustomizeCheck) Input(in Input) {
	if in.Path == "-" {
		return
	}
	var files []string
	for _, f := range in.Files {
		files = append(files, f.Path)
	}
	for _, file := range files {
		dir := filepath.Dir(file)
		k := c.kustomizationOf(file)
		if k == nil || c.checked[dir] {
			continue
		}
		c.checked[dir] = true
		if reason := k.changes(files, c.byFile); reason != "" {
			c.bases = append(c.bases, unbuiltBase{k: k, reason: reason})
		}
	}
}

// Err is the check's verdict: the kustomize bases given, with the command to read their build.
func (c *KustomizeCheck) Err() error {
	if len(c.errs) > 0 {
		return errors.Join(c.errs...)
	}
	if len(c.bases) == 0 {
		return nil
	}
	advice := fmt.Sprintf("give what kustomize builds from the overlay you apply: kustomize build %s | %s", suggestedOverlay(c.bases), c.command)
	if len(c.bases) == 1 {
		return fmt.Errorf("%s holds kustomize's input, not what is applied: %s; %s", c.bases[0].k.dir, c.bases[0].reason, advice)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "these directories hold kustomize's input, not what is applied; %s", advice)
	for _, base := range c.bases {
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
// change what is read from them.
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
	if reason := k.transforms(); reason != "" {
		return reason
	}
	if k.Namespace == "" {
		return ""
	}
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
	return ""
}

// transforms says which of the build's transformations changes every object it reads.
func (k *kustomization) transforms() string {
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
	return ""
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
// Service elsewhere. Kinds not known are taken as namespaced when they name a namespace, and
// left alone when they do not: they may be cluster-scoped.
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
