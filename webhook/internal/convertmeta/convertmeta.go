package convertmeta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Merge is the converted object's metadata as kube-apiserver keeps it of a conversion
// webhook's answer: the original's, but for labels and annotations, which are the converted
// metadata's — absent or null there, absent in the result. Labels or annotations that differ from
// the original's are validated as the apiserver validates them, which refuses the whole conversion
// when they are invalid. The result is nil when neither has anything to say.
func Merge(original, converted json.RawMessage) (json.RawMessage, error) {
	var orig, conv map[string]json.RawMessage
	if !isNull(original) {
		if err := json.Unmarshal(original, &orig); err != nil {
			return nil, fmt.Errorf("the object's metadata is not a JSON object: %w", err)
		}
	}
	if !isNull(converted) {
		if err := json.Unmarshal(converted, &conv); err != nil {
			return nil, fmt.Errorf("the converted metadata is not a JSON object: %w", err)
		}
	}
	out := make(map[string]json.RawMessage, len(orig)+2)
	maps.Copy(out, orig)
	for _, name := range []string{"labels", "annotations"} {
		raw, ok := conv[name]
		if !ok || isNull(raw) {
			delete(out, name)
			continue
		}
		values, err := stringMap(raw)
		if err != nil {
			return nil, fmt.Errorf("the converted metadata.%s: %w", name, err)
		}
		// As the apiserver, check only what changed: labels a cluster already holds stay readable.
		before, err := stringMap(orig[name])
		if err != nil || !maps.Equal(before, values) {
			if errs := validateMetadataMap(name, values); len(errs) > 0 {
				return nil, fmt.Errorf("invalid metadata, which kube-apiserver refuses: %w", errs.ToAggregate())
			}
		}
		out[name] = raw
	}
	if orig == nil && len(out) == 0 {
		return nil, nil
	}
	return json.Marshal(out)
}

// validateMetadataMap validates labels or annotations with the apiserver's functions and field
// paths, so that its words reach the user before a cluster does.
func validateMetadataMap(name string, values map[string]string) field.ErrorList {
	if name == "labels" {
		return metav1validation.ValidateLabels(values, field.NewPath("metadata", "labels"))
	}
	// "annotation", not "annotations": the path kube-apiserver's conversion check reports.
	return apivalidation.ValidateAnnotations(values, field.NewPath("metadata", "annotation"))
}

// stringMap decodes labels or annotations, refusing a value that is not a string as kube-apiserver
// does (encoding/json would decode null as ""); absent or null is nil.
func stringMap(raw json.RawMessage) (map[string]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var values map[string]any
	if err := json.Unmarshal(raw, &values); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	out := make(map[string]string, len(values))
	for k, v := range values {
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("[%s] must be a string, but is %T", k, v)
		}
		out[k] = str
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}
