package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// dumpInputs are the inputs -f names, read by package manifest; standard input is copied to a
// file (a dump is read twice: its state, then its objects). remove deletes that copy.
func (o *auditOptions) dumpInputs(stdin io.Reader) (dump *manifest.Inputs, remove func(), err error) {
	remove = func() {}
	if dump, err = manifest.Expand(o.files, manifest.Options{Recursive: o.session.recursive, Stdin: stdin, Command: "admit audit -f -"}); err != nil {
		return nil, remove, err
	}
	remove, err = dump.Spool()
	return dump, remove, err
}

// knownCRDs are the CustomResourceDefinitions of the state: given, read from the cluster, found
// in the dump.
func knownCRDs(cfg review.Config) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	crds := append([]*apiextensionsv1.CustomResourceDefinition(nil), cfg.CRDs...)
	seen := map[string]bool{}
	for _, c := range crds {
		seen[c.Name] = true
	}
	for _, obj := range append(append([]*unstructured.Unstructured(nil), cfg.Cluster...), cfg.Live...) {
		gvk := obj.GroupVersionKind()
		if gvk.Group != "apiextensions.k8s.io" || gvk.Kind != "CustomResourceDefinition" || seen[obj.GetName()] {
			continue
		}
		seen[obj.GetName()] = true
		var crd apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &crd); err != nil {
			return nil, fmt.Errorf("reading CustomResourceDefinition %s: %w", obj.GetName(), err)
		}
		crds = append(crds, &crd)
	}
	return crds, nil
}

// isStateKind reports the kinds admission reads of the cluster besides policies' parameters.
func isStateKind(gk schema.GroupKind) bool {
	switch gk {
	case schema.GroupKind{Kind: "Namespace"}, schema.GroupKind{Kind: "ServiceAccount"}, schema.GroupKind{Kind: "LimitRange"},
		schema.GroupKind{Kind: "ResourceQuota"}, schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"},
		schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}, schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"},
		schema.GroupKind{Group: "node.k8s.io", Kind: "RuntimeClass"}, schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:
		return true
	}
	return false
}

// paramKinds are the kinds the policies of sets take as parameters.
func paramKinds(sets ...admissionSet) map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, set := range sets {
		for _, p := range set.policies {
			apiVersion, _, _ := unstructured.NestedString(p.Object.Object, "spec", "paramKind", "apiVersion")
			kind, _, _ := unstructured.NestedString(p.Object.Object, "spec", "paramKind", "kind")
			if gv, err := schema.ParseGroupVersion(apiVersion); err == nil && kind != "" {
				out[gv.WithKind(kind).GroupKind()] = true
			}
		}
	}
	return out
}

// dumpScan is what a first reading of a dump finds: how many objects, the namespaces they live
// in, and the state admission reads (when no cluster gives it).
type dumpScan struct {
	objects    int
	namespaces []string
	state      []*unstructured.Unstructured
}

func scanDump(dump *manifest.Inputs, base, proposed admissionSet, wantState bool) (dumpScan, error) {
	var out dumpScan
	params := paramKinds(base, proposed)
	namespaces := map[string]bool{}
	// The service accounts the objects name: of the state's, the only ones admission reads (a
	// pod's must exist), besides each namespace's default. A cluster has about as many service
	// accounts as workloads: the others are not kept.
	named := map[string]bool{}
	{
		err := dump.Each(func(o manifest.Object) error {
			in := review.Input{Source: o.Source.String(), Object: o.Object}
			out.objects++
			gk := in.Object.GroupVersionKind().GroupKind()
			ns := in.Object.GetNamespace()
			if ns != "" {
				namespaces[ns] = true
			}
			if !wantState {
				return nil
			}
			for _, name := range serviceAccountNames(in.Object.Object, nil) {
				named[ns+"/"+name] = true
			}
			if (isStateKind(gk) || params[gk]) && gk != (schema.GroupKind{Kind: "Secret"}) {
				// Kept for the whole run, by both configurations' chains: without the record of
				// who wrote what, which admission does not read.
				unstructured.RemoveNestedField(in.Object.Object, "metadata", "managedFields")
				out.state = append(out.state, in.Object)
			}
			return nil
		})
		if err != nil {
			return dumpScan{}, err
		}
	}
	out.state = slices.DeleteFunc(out.state, func(obj *unstructured.Unstructured) bool {
		return obj.GetKind() == "ServiceAccount" && obj.GetAPIVersion() == "v1" && obj.GetName() != "default" && !named[obj.GetNamespace()+"/"+obj.GetName()]
	})
	out.namespaces = sortedSet(namespaces)
	return out, nil
}

// serviceAccountNames are the values of every serviceAccountName field in an object (a pod's
// spec, a workload's pod template, a CronJob's job template), appended to names.
func serviceAccountNames(v any, names []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, field := range v {
			if name, ok := field.(string); ok && k == "serviceAccountName" && name != "" {
				names = append(names, name)
				continue
			}
			names = serviceAccountNames(field, names)
		}
	case []any:
		for _, item := range v {
			names = serviceAccountNames(item, names)
		}
	}
	return names
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// logScan is what a first reading of an audit log finds: how many writes, their namespaces, the
// state as the log last shows it.
type logScan = dumpScan

func scanAuditLog(path string, wantState bool) (logScan, error) {
	var out logScan
	namespaces := map[string]bool{}
	mapper, err := resources.Builtin()
	if err != nil {
		return logScan{}, err
	}
	state := newLogReplay(path, mapper, func(gvr schema.GroupVersionResource) bool {
		kind, err := mapper.KindFor(gvr, "")
		return err == nil && isStateKind(kind.GroupKind())
	}, false)
	err = eachAuditEvent(path, path, func(line int, ev *auditEvent) error {
		if !ev.isWrite() {
			return nil
		}
		out.objects++
		if ev.ObjectRef.Namespace != "" {
			namespaces[ev.ObjectRef.Namespace] = true
		}
		if wantState {
			state.item(line, ev)
		}
		return nil
	})
	if err != nil {
		return logScan{}, err
	}
	for _, data := range state.stored {
		if obj := eventObject(data); obj != nil {
			out.state = append(out.state, obj)
		}
	}
	// The log's order is lost in a map: sorted, the state is the same from run to run.
	slices.SortFunc(out.state, func(a, b *unstructured.Unstructured) int {
		return cmp.Or(strings.Compare(a.GetKind(), b.GetKind()), strings.Compare(a.GetNamespace(), b.GetNamespace()), strings.Compare(a.GetName(), b.GetName()))
	})
	out.namespaces = sortedSet(namespaces)
	return out, nil
}
