package builtin_test

import (
	"context"
	"fmt"
	"log"
	"sort"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/builtin"
	"github.com/admitkit/admit/webhook"
)

// Image references are read as container runtimes read them.
func ExampleParseImageReference() {
	for _, image := range []string{"nginx", "user/app:v2", "localhost:5000/app", "quay.io/prometheus/node-exporter:v1.8.0", "Nginx"} {
		ref, err := builtin.ParseImageReference(image)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-40s registry=%s repository=%s tag=%q\n", image, ref.Registry, ref.Repository, ref.Tag)
	}
	// Output:
	// nginx                                    registry=docker.io repository=library/nginx tag=""
	// user/app:v2                              registry=docker.io repository=user/app tag="v2"
	// localhost:5000/app                       registry=localhost:5000 repository=app tag=""
	// quay.io/prometheus/node-exporter:v1.8.0  registry=quay.io repository=prometheus/node-exporter tag="v1.8.0"
	// invalid image reference "Nginx": repository path component "Nginx" must be lower-case letters and digits, separated by '.', '_', '__' or dashes
}

// Rewrite moves an image to its registry's mirror and leaves other registries alone.
func ExampleMirrorSpec_Rewrite() {
	spec := builtin.MirrorSpec{Mirrors: []builtin.Mirror{{Registry: "docker.io", Mirror: "mirror.local/hub"}}}
	for _, image := range []string{"nginx:1.27", "index.docker.io/user/app", "ghcr.io/org/app", "mirror.local/hub/library/nginx:1.27"} {
		rewritten, changed, err := spec.Rewrite(image)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(image, "->", rewritten, changed)
	}
	// Output:
	// nginx:1.27 -> mirror.local/hub/library/nginx:1.27 true
	// index.docker.io/user/app -> mirror.local/hub/user/app true
	// ghcr.io/org/app -> ghcr.io/org/app false
	// mirror.local/hub/library/nginx:1.27 -> mirror.local/hub/library/nginx:1.27 false
}

// A parent resource embedding a MirrorSpec reports its problems under its own field path.
func ExampleMirrorSpec_Validate() {
	spec := builtin.MirrorSpec{Mirrors: []builtin.Mirror{{Registry: "docker.io", Mirror: "quay.io/hub"}, {Registry: "quay.io", Mirror: "mirror.local/quay"}}}
	spec.Default()
	for _, err := range spec.Validate(field.NewPath("spec", "images")) {
		fmt.Println(err)
	}
	// Output:
	// spec.images.mirrors[0].mirror: Invalid value: "quay.io/hub": is on registry quay.io, which is itself mirrored by spec.images.mirrors[1]: images would be rewritten twice
}

// A server reads its settings with os.LookupEnv; a bad value stops it at startup, naming the
// variable and the entry.
func ExampleConfigFromEnv() {
	environment := map[string]string{
		"ADMIT_IMAGE_MIRRORS":   "docker.io=mirror.local/hub,quay.io=quay-mirror",
		"ADMIT_REQUIRED_LABELS": "ConfigMap=team,Deploymnet=team",
	}
	_, err := builtin.ConfigFromEnv(func(name string) (string, bool) {
		value, ok := environment[name]
		return value, ok
	})
	fmt.Println(err)
	// Output:
	// invalid built-in webhook settings in the environment:
	// ADMIT_IMAGE_MIRRORS[quay.io=quay-mirror].mirror: Invalid value: "quay-mirror": must start with a registry host (a name with a "." or a ":", or "localhost"), e.g. mirror.local/hub
	// ADMIT_REQUIRED_LABELS[Deploymnet=team]: Invalid value: "Deploymnet": no kind Deploymnet in Kubernetes v1.36.3; a custom kind is written Kind.version.group/resource, e.g. Widget.v1.example.com/widgets
}

// Register adds the enabled webhooks to a registry, which serves them and describes them as
// webhook configurations.
func ExampleRegister() {
	cfg, err := builtin.ConfigFromEnv(func(name string) (string, bool) {
		if name == builtin.EnvRequiredAnnotations {
			return "Deployment=owner", true
		}
		return "", false
	})
	if err != nil {
		log.Fatal(err)
	}
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := builtin.Register(r, cfg); err != nil {
		log.Fatal(err)
	}
	for _, w := range r.Webhooks() {
		fmt.Println(w.Name, w.Path, w.Operations, w.FailurePolicy)
	}
	// Output:
	// deployments.apps.required-labels.admit.dev /required-labels/validate-apps-v1-deployment [CREATE UPDATE] Fail
	// namespace-protection.admit.dev /namespace-protection/validate-core-v1-namespace [DELETE] Fail
}

// The embedded demo: the demo Deployment through the mirrors webhook, as `admit review` shows it.
func ExampleDemoObjects() {
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := builtin.Register(r, builtin.DemoConfig()); err != nil {
		log.Fatal(err)
	}
	objects := builtin.DemoObjects()
	names := make([]string, 0, len(objects))
	for name := range objects {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Println(names)

	deployment, err := yaml.YAMLToJSON(objects[builtin.DemoDeployment])
	if err != nil {
		log.Fatal(err)
	}
	req := &webhook.Request{}
	req.Operation = admissionv1.Create
	req.Kind.Group, req.Kind.Version, req.Kind.Kind = "apps", "v1", "Deployment"
	req.Object.Raw = deployment
	for _, w := range r.Webhooks() {
		if w.Name == "deployments.apps.image-mirrors.admit.dev" {
			resp := w.Handler.Admit(context.Background(), req)
			fmt.Println(resp.Outcome)
			for _, warning := range resp.Warnings {
				fmt.Println(warning)
			}
		}
	}
	// Output:
	// [configmap.yaml deployment.yaml namespace.yaml]
	// patched
	// image "nginx:1.27" rewritten to "mirror.local/hub/library/nginx:1.27"
	// image "quay.io/prometheus/node-exporter:v1.8.0" rewritten to "mirror.local/quay/prometheus/node-exporter:v1.8.0"
}
