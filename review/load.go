package review

import (
	"errors"
	"fmt"
	"io"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/resources"
)

// Admission is a cluster's admission configuration: webhook configurations (defaulted, as the
// apiserver stores them), and admission policies with their bindings.
type Admission struct {
	Mutating   []*admissionregistrationv1.MutatingWebhookConfiguration
	Validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	Policies   []Input
}

// AdmissionOf takes the configurations and policies of a loaded set; its other objects are not
// admission's configuration.
func AdmissionOf(set *config.Set) Admission {
	out := Admission{Mutating: set.MutatingConfigs(), Validating: set.ValidatingConfigs()}
	for _, obj := range set.Others {
		if resources.IsPolicy(obj.Object.GroupVersionKind().GroupKind()) {
			out.Policies = append(out.Policies, Input{Source: obj.Source.String(), Object: obj.Object})
		}
	}
	return out
}

// Size counts the configurations, policies and bindings.
func (a Admission) Size() int { return len(a.Mutating) + len(a.Validating) + len(a.Policies) }

// Use makes a the admission configuration of cfg.
func (a Admission) Use(cfg *Config) {
	cfg.Mutating, cfg.Validating, cfg.Policies = a.Mutating, a.Validating, a.Policies
}

// Paths name what a review reads from files, as admit's flags and test files name them. Every
// path is read by package manifest (config.Load): files, directories (Recursive: their
// subdirectories too), "-" for Stdin.
type Paths struct {
	// Webhooks are webhook configurations, admission policies and their bindings: each path
	// must hold at least one of them.
	Webhooks []string
	// Cluster is the cluster's state; Namespaces holds Namespace objects only; CRDs holds
	// CustomResourceDefinitions.
	Cluster, Namespaces, CRDs []string
	Recursive                 bool
	Stdin                     io.Reader
}

// LoadAdmission reads the webhook configurations, admission policies and bindings of paths, and
// checks the configurations as the apiserver checks a create: warnings are what it would answer
// the create with. Each path must give a configuration or a policy: one that gives none (its
// configurations in subdirectories read without Recursive, a file of ordinary objects) would
// review with nothing and admit everything. flag names the paths in messages ("--webhooks").
func LoadAdmission(flag string, paths []string, recursive bool, stdin io.Reader) (_ Admission, warnings []string, err error) {
	set := &config.Set{}
	var errs []error
	for _, path := range paths {
		loaded, err := config.Load(config.Options{Recursive: recursive, Stdin: stdin}, path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", flag, err))
			continue
		}
		if AdmissionOf(loaded).Size() == 0 {
			errs = append(errs, fmt.Errorf("%s %s: %s", flag, inputName(path), nothingToReviewWith(path, len(loaded.Others), recursive)))
			continue
		}
		set.Append(loaded)
	}
	if err := errors.Join(errs...); err != nil {
		return Admission{}, nil, err
	}
	warnings, err = set.Validate()
	if err != nil {
		return Admission{}, warnings, err
	}
	return AdmissionOf(set), warnings, nil
}

// inputName is how an input path is named in messages.
func inputName(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}

// nothingToReviewWith says why an input gave no configuration or policy, and what to do.
func nothingToReviewWith(path string, others int, recursive bool) string {
	msg := "no webhook configuration or admission policy"
	switch {
	case others == 1:
		msg += " among its 1 object"
	case others > 1:
		msg += fmt.Sprintf(" among its %d objects", others)
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() && !recursive {
		if entries, err := os.ReadDir(path); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					return msg + " (-R reads its subdirectories)"
				}
			}
		}
	}
	return msg
}

// LoadState reads the cluster's state of p (Cluster and Namespaces) and its CRDs into cfg.
func (p Paths) LoadState(cfg *Config) error {
	state, err := p.loadState()
	if err != nil {
		return err
	}
	crds, err := p.loadCRDs()
	if err != nil {
		return err
	}
	cfg.Cluster, cfg.CRDs = state, crds
	return nil
}

// loadState reads Namespaces (Namespace objects only) and Cluster.
func (p Paths) loadState() ([]*unstructured.Unstructured, error) {
	var state []*unstructured.Unstructured
	if len(p.Namespaces) > 0 {
		set, err := config.Load(config.Options{Recursive: p.Recursive, Stdin: p.Stdin}, p.Namespaces...)
		if err != nil {
			return nil, err
		}
		for _, obj := range set.Others {
			if obj.Object.GroupVersionKind() != (schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}) {
				return nil, fmt.Errorf("%s: --namespaces takes Namespace objects, found %s", obj.Source, obj.Object.GetKind())
			}
			state = append(state, obj.Object)
		}
	}
	if len(p.Cluster) > 0 {
		set, err := config.Load(config.Options{Recursive: p.Recursive, Stdin: p.Stdin}, p.Cluster...)
		if err != nil {
			return nil, err
		}
		for _, obj := range set.Others {
			state = append(state, obj.Object)
		}
	}
	return state, nil
}

// loadCRDs reads the CustomResourceDefinitions of CRDs.
func (p Paths) loadCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if len(p.CRDs) == 0 {
		return nil, nil
	}
	set, err := config.Load(config.Options{Stdin: p.Stdin}, p.CRDs...)
	if err != nil {
		return nil, err
	}
	var crds resources.CRDs
	for _, obj := range set.Others {
		if err := crds.AddObject(obj.Object, obj.Source.String()); err != nil {
			return nil, err
		}
	}
	if len(crds.List()) == 0 {
		return nil, fmt.Errorf("--crds %v: no CustomResourceDefinition found", p.CRDs)
	}
	return crds.List(), nil
}

// ReadCABundle reads CA certificates from a PEM file, and nothing else (never a private key):
// the caBundle of webhooks whose configuration has none (Config.DefaultCABundle).
func ReadCABundle(path string) ([]byte, error) {
	bundle, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := certs.ParseCertificatesPEM(bundle); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return bundle, nil
}
