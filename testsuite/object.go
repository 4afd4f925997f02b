package testsuite

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
)

// maxDifferences bounds the differences an object comparison reports: a wrong kind or a
// different whole object would otherwise bury the other failures.
const maxDifferences = 10

// VolatileFields are the metadata fields the apiserver sets anew on every write: a wholeObject
// expectation leaves them out of the comparison, and --update out of the file.
func VolatileFields() []string {
	return []string{"uid", "creationTimestamp", "resourceVersion", "managedFields"}
}

// withoutVolatile returns obj without VolatileFields; obj is not changed.
func withoutVolatile(obj any) any {
	m, ok := obj.(map[string]any)
	if !ok {
		return obj
	}
	meta, ok := m["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	cleaned := make(map[string]any, len(meta))
	for k, v := range meta {
		cleaned[k] = v
	}
	for _, f := range VolatileFields() {
		delete(cleaned, f)
	}
	out["metadata"] = cleaned
	return out
}

// compare lists how got differs from want, one sentence per difference, each naming its path
// as the fields expectation does (spec.containers[0].image). Mappings are compared key by key:
// a null in want means the key must be absent; with exact, keys of got that want lacks are
// differences too. Lists must have want's length and match item by item.
func compare(want, got any, exact bool) []string {
	var out []string
	more := 0
	report := func(format string, args ...any) {
		if len(out) < maxDifferences {
			out = append(out, fmt.Sprintf(format, args...))
		} else {
			more++
		}
	}
	var walk func(path string, want, got any)
	walk = func(path string, want, got any) {
		switch w := want.(type) {
		case map[string]any:
			g, ok := got.(map[string]any)
			if !ok {
				report("%s is %s, want a mapping", pathOrRoot(path), jsonText(got))
				return
			}
			for _, k := range sortedKeys(w) {
				sub := joinPath(path, k)
				v, present := g[k]
				switch {
				case w[k] == nil && present && v != nil:
					report("%s is %s, want it absent", sub, jsonText(v))
				case w[k] == nil:
				case !present || v == nil:
					report("%s is absent, want %s", sub, jsonText(w[k]))
				default:
					walk(sub, w[k], v)
				}
			}
			if exact {
				for _, k := range sortedKeys(g) {
					if _, given := w[k]; !given && g[k] != nil {
						report("%s is %s, want it absent", joinPath(path, k), jsonText(g[k]))
					}
				}
			}
		case []any:
			g, ok := got.([]any)
			if !ok {
				report("%s is %s, want a list", pathOrRoot(path), jsonText(got))
				return
			}
			if len(g) != len(w) {
				report("%s has %d items, want %d: %s", pathOrRoot(path), len(g), len(w), jsonText(got))
				return
			}
			for i := range w {
				walk(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
			}
		default:
			// Values decoded from JSON, where reflect.DeepEqual is go-cmp's Equal. go-cmp stays out
			// of the CLI: it looks up methods through reflection by index, which makes the linker
			// keep every exported method of every type (about 30 MB; docs/benchmarks.md).
			if !reflect.DeepEqual(want, got) {
				report("%s is %s, want %s", pathOrRoot(path), jsonText(got), jsonText(want))
			}
		}
	}
	walk("", want, got)
	if more > 0 {
		out = append(out, fmt.Sprintf("and %d more differences", more))
	}
	return out
}

// plainKey is a key a field path writes after a dot; others are written ["key"].
var plainKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

func joinPath(path, key string) string {
	if !plainKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func pathOrRoot(path string) string {
	if path == "" {
		return "the object"
	}
	return path
}

// project keeps of got the parts want names: the keys of want's mappings (a key got lacks
// becomes null, "absent"), lists item by item (items beyond want's whole). It is what --update
// writes for a partial document: the same shape, with the values admission gave.
func project(want, got any) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := map[string]any{}
		for k, wv := range w {
			if gv, present := g[k]; present {
				out[k] = project(wv, gv)
			} else {
				out[k] = nil
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return got
		}
		out := make([]any, len(g))
		for i := range g {
			if i < len(w) {
				out[i] = project(w[i], g[i])
			} else {
				out[i] = g[i]
			}
		}
		return out
	}
	return got
}
