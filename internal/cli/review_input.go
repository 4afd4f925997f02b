package cli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admitkit/admit/dispatch/config"
)

// inputObject is one object read from the command line's files, with where it came from.
type inputObject struct {
	source config.Source
	object *unstructured.Unstructured
}

// stdinName is how standard input is named in messages and output.
const stdinName = "<stdin>"

// readObjects reads every object of the files, directories and stdin ("-") named by paths, in
// the order given: a file's documents in order, a List's items in order, a directory's *.yaml,
// *.yml and *.json files in lexical order (and its subdirectories' with recursive, like
// kubectl's -R). Every unreadable or malformed file is reported; then nothing is returned.
func readObjects(paths []string, recursive bool, stdin io.Reader) ([]inputObject, error) {
	files, err := expandPaths(paths, recursive)
	if err != nil {
		return nil, err
	}
	var objects []inputObject
	var errs []error
	stdinRead := false
	for _, file := range files {
		var data []byte
		label := file
		if file == "-" {
			if stdinRead {
				errs = append(errs, fmt.Errorf(`"-" (standard input) is given more than once`))
				continue
			}
			stdinRead, label = true, stdinName
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(file)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		read, err := parseObjects(label, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objects = append(objects, read...)
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return objects, nil
}

// parseObjects reads the objects of one file in the order they appear. config.Parse sorts
// webhook configurations apart from other objects; their sources give the order back.
func parseObjects(label string, data []byte) ([]inputObject, error) {
	set, err := config.Parse(label, data)
	if err != nil {
		return nil, err
	}
	var objects []inputObject
	for _, m := range set.Mutating {
		objects = append(objects, inputObject{m.Source, toUnstructured(m.Config, "MutatingWebhookConfiguration")})
	}
	for _, v := range set.Validating {
		objects = append(objects, inputObject{v.Source, toUnstructured(v.Config, "ValidatingWebhookConfiguration")})
	}
	for _, other := range set.Others {
		objects = append(objects, inputObject{other.Source, other.Object})
	}
	slices.SortStableFunc(objects, func(x, y inputObject) int {
		return cmp.Or(cmp.Compare(x.source.Document, y.source.Document), cmp.Compare(x.source.Line, y.source.Line), cmp.Compare(x.source.Item, y.source.Item))
	})
	return objects, nil
}

// expandPaths turns files and directories into the list of files to read, in order.
func expandPaths(paths []string, recursive bool) ([]string, error) {
	var files []string
	var errs []error
	for _, p := range paths {
		if p == "-" {
			files = append(files, p)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := manifestsIn(p, recursive)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(found) == 0 {
			errs = append(errs, fmt.Errorf("%s: no *.yaml, *.yml or *.json files%s", p, map[bool]string{true: "", false: " (use -R for subdirectories)"}[recursive]))
		}
		files = append(files, found...)
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return files, nil
}

// manifestsIn lists a directory's manifest files in lexical order, subdirectories' files at
// their place in that order when recursive.
func manifestsIn(dir string, recursive bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, entry := range entries {
		path := filepath.Join(dir, entry.Name())
		switch {
		case entry.IsDir():
			if recursive {
				found, err := manifestsIn(path, recursive)
				if err != nil {
					return nil, err
				}
				files = append(files, found...)
			}
		case isManifestName(entry.Name()):
			files = append(files, path)
		}
	}
	return files, nil
}

func isManifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// joinErrors reports several input problems one per line.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	lines := make([]string, len(errs))
	for i, err := range errs {
		lines[i] = err.Error()
	}
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}

func toUnstructured(obj any, kind string) *unstructured.Unstructured {
	m, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("admissionregistration.k8s.io/v1")
	u.SetKind(kind)
	return u
}

// objectKey identifies an object for pairing an UPDATE's new and old objects: group, kind,
// namespace and name (the version may differ, as it may between a client and the storage).
type objectKey struct {
	group, kind, namespace, name string
}

func keyOf(obj *unstructured.Unstructured, defaultNamespace string) objectKey {
	gvk := obj.GroupVersionKind()
	ns := obj.GetNamespace()
	if ns == "" {
		ns = defaultNamespace
	}
	return objectKey{group: gvk.Group, kind: gvk.Kind, namespace: ns, name: obj.GetName()}
}

func (k objectKey) String() string {
	kind := k.kind
	if k.group != "" {
		kind += "." + k.group
	}
	if k.namespace != "" {
		return fmt.Sprintf("%s %s/%s", kind, k.namespace, k.name)
	}
	return fmt.Sprintf("%s %s", kind, k.name)
}
