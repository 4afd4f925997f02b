package builtin

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/resources"
)

// Environment variables ConfigFromEnv reads. Their formats are in the package documentation.
const (
	EnvImageMirrors        = "ADMIT_IMAGE_MIRRORS"
	EnvRequiredLabels      = "ADMIT_REQUIRED_LABELS"
	EnvRequiredAnnotations = "ADMIT_REQUIRED_ANNOTATIONS"
	EnvNamespaceProtection = "ADMIT_NAMESPACE_PROTECTION"
)

// ConfigFromEnv reads the configuration from environment variables through lookup (os.LookupEnv
// in a server; a map or command-line flags elsewhere):
//
//   - ADMIT_IMAGE_MIRRORS enables image mirrors when set;
//   - ADMIT_REQUIRED_LABELS and ADMIT_REQUIRED_ANNOTATIONS enable required labels when either is set;
//   - namespace protection is on unless ADMIT_NAMESPACE_PROTECTION is "off".
//
// Every problem is returned at once, one per line, naming the variable and the entry at fault,
// e.g. `ADMIT_IMAGE_MIRRORS[docker.io=hub].mirror: Invalid value: "hub": must start with a
// registry host ...`, so a bad value stops the server at startup rather than surfacing on a request.
// The specs returned are defaulted and valid.
func ConfigFromEnv(lookup func(name string) (value string, ok bool)) (Config, error) {
	if lookup == nil {
		return Config{}, errors.New("reading the built-in webhooks' settings: no environment lookup function")
	}
	get := func(name string) string {
		value, _ := lookup(name)
		return strings.TrimSpace(value)
	}
	var cfg Config
	var errs field.ErrorList
	if value := get(EnvImageMirrors); value != "" {
		var problems field.ErrorList
		cfg.ImageMirrors, problems = mirrorsFromEnv(value)
		errs = append(errs, problems...)
	}
	if labels, annotations := get(EnvRequiredLabels), get(EnvRequiredAnnotations); labels != "" || annotations != "" {
		mapper, err := resources.Builtin()
		if err != nil {
			return Config{}, fmt.Errorf("reading %s and %s: %w", EnvRequiredLabels, EnvRequiredAnnotations, err)
		}
		var problems field.ErrorList
		cfg.RequiredMetadata, problems = requiredFromEnv(mapper, labels, annotations)
		errs = append(errs, problems...)
	}
	var problems field.ErrorList
	cfg.NamespaceProtection, problems = protectionFromEnv(get(EnvNamespaceProtection))
	errs = append(errs, problems...)
	const problemsIntro = "invalid built-in webhook settings in the environment:\n%w"
	if len(errs) > 0 {
		return Config{}, fmt.Errorf(problemsIntro, fieldErrorsAsError(errs))
	}
	// The checks Register makes; the per-entry checks above should have covered them already.
	normalized, err := cfg.normalized()
	if err != nil {
		return Config{}, fmt.Errorf(problemsIntro, err)
	}
	return normalized, nil
}

// splitList splits a separated list, dropping spaces around items and empty items, so a trailing
// separator or a value folded over several lines in a manifest reads as expected.
func splitList(value, separator string) []string {
	var items []string
	for _, item := range strings.Split(value, separator) {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// mirrorsFromEnv reads "REGISTRY=MIRROR[,REGISTRY=MIRROR]...".
func mirrorsFromEnv(value string) (*MirrorSpec, field.ErrorList) {
	root := field.NewPath(EnvImageMirrors)
	var spec MirrorSpec
	var entries []string // entries[i] is the text of spec.Mirrors[i]
	var errs field.ErrorList
	for _, entry := range splitList(value, ",") {
		registry, mirror, ok := strings.Cut(entry, "=")
		if !ok {
			errs = append(errs, field.Invalid(root.Key(entry), entry, "want REGISTRY=MIRROR, e.g. docker.io=mirror.local/hub"))
			continue
		}
		spec.Mirrors = append(spec.Mirrors, Mirror{Registry: registry, Mirror: mirror})
		entries = append(entries, entry)
	}
	if len(errs) > 0 && len(spec.Mirrors) == 0 {
		return nil, errs // "at least one mirror" would add nothing to what is already said
	}
	spec.Default()
	errs = append(errs, spec.validate(root, func(i int) *field.Path { return root.Key(entries[i]) })...)
	return &spec, errs
}

// requiredFromEnv reads "KIND=KEY[;KEY]...[,KIND=KEY[;KEY]...]" from both variables and merges
// them, one KindRequirement per kind, in the order kinds first appear.
func requiredFromEnv(mapper *resources.Mapper, labels, annotations string) (*RequiredMetadataSpec, field.ErrorList) {
	spec := &RequiredMetadataSpec{}
	index := map[schema.GroupVersionKind]int{} // kind -> its position in spec.Kinds
	var errs field.ErrorList
	read := func(envVar, value, what string, keysOf func(*KindRequirement) *[]string) {
		root := field.NewPath(envVar)
		entryOf := map[schema.GroupVersionKind]string{} // kind -> the entry of envVar naming it
		for _, entry := range splitList(value, ",") {
			path := root.Key(entry)
			kindName, keyList, ok := strings.Cut(entry, "=")
			if !ok {
				errs = append(errs, field.Invalid(path, entry, "want KIND=KEY[;KEY]..., e.g. ConfigMap=team;app.kubernetes.io/name"))
				continue
			}
			kindName = strings.TrimSpace(kindName)
			gvk, resource, err := resolveKind(mapper, kindName)
			if err != nil {
				errs = append(errs, field.Invalid(path, kindName, err.Error()))
				continue
			}
			if first, listed := entryOf[gvk]; listed {
				errs = append(errs, field.Invalid(path, kindName, fmt.Sprintf("is listed already, in %s: put all its %s keys in one entry, separated by ';'", root.Key(first), what)))
				continue
			}
			entryOf[gvk] = entry
			keys := splitList(keyList, ";")
			if len(keys) == 0 {
				errs = append(errs, field.Required(path, fmt.Sprintf("at least one %s key after '='", what)))
				continue
			}
			if problems := checkKeys(keys, func(int) *field.Path { return path }); len(problems) > 0 {
				errs = append(errs, problems...)
				continue
			}
			i, known := index[gvk]
			if !known {
				i = len(spec.Kinds)
				index[gvk] = i
				spec.Kinds = append(spec.Kinds, KindRequirement{Kind: gvk, Resource: resource})
			}
			*keysOf(&spec.Kinds[i]) = append(*keysOf(&spec.Kinds[i]), keys...)
		}
	}
	read(EnvRequiredLabels, labels, "label", func(k *KindRequirement) *[]string { return &k.Labels })
	read(EnvRequiredAnnotations, annotations, "annotation", func(k *KindRequirement) *[]string { return &k.Annotations })
	if len(spec.Kinds) == 0 && len(errs) == 0 { // only separators
		envVar := EnvRequiredLabels
		if labels == "" {
			envVar = EnvRequiredAnnotations
		}
		errs = append(errs, field.Required(field.NewPath(envVar), "at least one KIND=KEY entry"))
	}
	return spec, errs
}

// protectionFromEnv reads "on" (or "true", or nothing: the default label), "off" (or "false"), or
// "KEY=VALUE".
func protectionFromEnv(value string) (*ProtectionSpec, field.ErrorList) {
	root := field.NewPath(EnvNamespaceProtection)
	switch strings.ToLower(value) {
	case "", "on", "true":
		spec := &ProtectionSpec{}
		spec.Default()
		return spec, nil
	case "off", "false":
		return nil, nil
	}
	key, labelValue, ok := strings.Cut(value, "=")
	if !ok || strings.TrimSpace(labelValue) == "" {
		return nil, field.ErrorList{field.Invalid(root, value, `want KEY=VALUE (e.g. admit.dev/protected=true), "on" or "off"`)}
	}
	spec := &ProtectionSpec{LabelKey: key, LabelValue: labelValue}
	spec.Default()
	return spec, spec.Validate(root)
}
