// Package builtin holds the webhooks `admit serve` runs, written with the webhook framework, and
// the objects of the embedded demo (`admit review` without --webhooks serves DemoConfig
// in-process). They are configured from environment variables, so that a cluster admin changes
// them by editing the server's Deployment: no rebuild, no upstream patch, which is what an
// air-gapped cluster needs.
//
// # The webhooks
//
// Image mirrors (mutating, failurePolicy Ignore) rewrite the images of containers and init
// containers of Pods and of the pod templates of Deployments, StatefulSets, DaemonSets,
// ReplicaSets, Jobs and CronJobs, and of ephemeral containers as they are added through
// pods/ephemeralcontainers, to mirror registries. Images are read as container runtimes read them
// (see ParseImageReference): "nginx" is docker.io/library/nginx and becomes
// "mirror.local/hub/library/nginx" with docker.io mirrored to mirror.local/hub; tags and digests
// are kept; images of registries without a mirror, mirrors included, are left alone, so the
// webhook gives the same answer when called again. Each rewrite is reported as a warning. Static
// pods' mirror pods and objects being deleted are not touched.
//
// Required labels (validating, failurePolicy Fail) deny objects of chosen kinds that lack chosen
// labels or annotations, with one 422 Invalid whose causes name each missing key
// (metadata.labels[team]: Required value). Objects are read as unstructured, so any kind works.
// An update is denied only when it removes a required key: objects older than the requirement stay
// updatable (a controller removing a finalizer must be able to), with a warning.
//
// Namespace protection (validating, failurePolicy Fail) denies deleting a namespace labelled
// admit.dev/protected=true (or another label), saying how to remove the protection.
//
// Each webhook family is registered once per resource (see ImageMirrorsWebhook for the names and
// Register for the paths). Defaults and checks live on the spec types (MirrorSpec,
// RequiredMetadataSpec, ProtectionSpec: Default, then Validate(path) returning every problem), so
// an operator's own resource can embed them and report problems under its own field path.
//
// # Environment
//
// ConfigFromEnv reads these variables; every list item may be surrounded by spaces, and empty
// items are ignored, so a value may be folded over several lines.
//
//	ADMIT_IMAGE_MIRRORS="docker.io=mirror.local/hub,quay.io=mirror.local/quay"
//
// REGISTRY=MIRROR pairs separated by commas. REGISTRY is a host with an optional port (docker.io
// also covers index.docker.io and registry-1.docker.io); MIRROR is a registry host, optionally
// followed by a path prefix. Unset or empty: no image mirrors.
//
//	ADMIT_REQUIRED_LABELS="ConfigMap=team,Deployment.apps=team;app.kubernetes.io/name"
//	ADMIT_REQUIRED_ANNOTATIONS="Deployment=owner"
//
// KIND=KEY;KEY... entries separated by commas; a kind in both variables gets both its labels and
// its annotations checked by one webhook. KIND is one of:
//
//	ConfigMap                       a kind Kubernetes 1.36 serves, in its preferred version
//	Deployment.apps, Event.core     the same in one group, for a kind several groups serve
//	Widget.v1.example.com/widgets   any other kind (custom resources): Kind.version.group/resource
//
// In Go, a KindRequirement takes the kind and resource of any kind directly. Both unset or empty:
// no required labels.
//
//	ADMIT_NAMESPACE_PROTECTION="admit.dev/protected=true"
//
// KEY=VALUE: the label that protects a namespace. Unset, empty, "on" or "true": the default label
// admit.dev/protected=true. "off" or "false": no namespace protection. It is on by default because
// it only acts on namespaces someone has labelled, and the label should mean what it says.
//
// # Files
//
//	config.go      Config, DemoConfig, Register: the families, their policies, names and paths
//	env.go         ConfigFromEnv: the environment variables read
//	mirrors.go     MirrorSpec: the image-mirrors webhook for Pods and for workloads' pod templates
//	image.go       ImageReference, ParseImageReference: references read as container runtimes do
//	required.go    RequiredMetadataSpec, KindRequirement: the required-labels webhook
//	kinds.go       the kinds the environment names, read into a kind and its resource
//	protection.go  ProtectionSpec: the namespace-protection webhook
//	demo.go        the demo objects: DemoDeployment, DemoConfigMap, DemoNamespace
//	serve_demo.go  Demo, ServeDemo: DemoConfig served on loopback, and the configurations calling it
package builtin
