package builtin

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook"
)

// MirrorSpec configures the image-mirrors webhook: the registries whose images are pulled from a
// mirror instead.
type MirrorSpec struct {
	// Mirrors lists each source registry once, with its mirror.
	Mirrors []Mirror
}

// Mirror sends the images of one registry to a mirror.
type Mirror struct {
	// Registry is the source registry as images name it, host and optional port: "docker.io",
	// "quay.io", "registry.example.com:5000". "docker.io" also covers unqualified images
	// ("nginx") and Docker Hub's other names.
	Registry string
	// Mirror is the mirror's registry host, optionally followed by a path prefix under which the
	// repositories are found: "mirror.local/hub" turns "nginx" into
	// "mirror.local/hub/library/nginx".
	Mirror string
}

// Default tidies what operators write: surrounding spaces go, a trailing "/" on a mirror goes, and
// a Docker Hub registry is written "docker.io" whichever of its names was used.
func (s *MirrorSpec) Default() {
	for i := range s.Mirrors {
		m := &s.Mirrors[i]
		m.Registry = strings.TrimSpace(m.Registry)
		if canonicalRegistry(m.Registry) == DockerHub {
			m.Registry = DockerHub
		}
		m.Mirror = strings.TrimRight(strings.TrimSpace(m.Mirror), "/")
	}
}

// Validate returns every problem of s, each at its field under path (mirrors[i].registry,
// mirrors[i].mirror), so a parent resource can embed a MirrorSpec and report with its own path.
// Beyond the syntax of each entry it refuses a registry listed twice, and a mirror hosted on a
// registry that is itself mirrored: its images would be rewritten again on every pass, and
// mutating webhooks must give the same answer when called twice.
func (s *MirrorSpec) Validate(path *field.Path) field.ErrorList {
	mirrors := path.Child("mirrors")
	return s.validate(mirrors, func(i int) *field.Path { return mirrors.Index(i) })
}

// validate checks s, naming the list by listPath and entry i by entryPath(i). The environment
// parser names entries by their text instead of their index, so its errors quote what the
// operator wrote.
func (s *MirrorSpec) validate(listPath *field.Path, entryPath func(i int) *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.Mirrors) == 0 {
		errs = append(errs, field.Required(listPath, "at least one registry and its mirror, e.g. docker.io=mirror.local/hub"))
	}
	firstEntry := map[string]int{} // registryKey -> index of its first entry
	for i, m := range s.Mirrors {
		registryPath := entryPath(i).Child("registry")
		switch {
		case m.Registry == "":
			errs = append(errs, field.Required(registryPath, "the registry to mirror, e.g. docker.io"))
		case strings.Contains(m.Registry, "/"):
			errs = append(errs, field.Invalid(registryPath, m.Registry, "a registry is a host with an optional port, without a path"))
		default:
			if err := checkRegistryHost(m.Registry); err != nil {
				errs = append(errs, field.Invalid(registryPath, m.Registry, err.Error()))
			} else if first, seen := firstEntry[registryKey(m.Registry)]; seen {
				errs = append(errs, field.Invalid(registryPath, m.Registry, fmt.Sprintf("is listed twice: %s mirrors it already", entryPath(first))))
			} else {
				firstEntry[registryKey(m.Registry)] = i
			}
		}
		errs = append(errs, checkMirror(entryPath(i).Child("mirror"), m.Mirror)...)
	}
	for i, m := range s.Mirrors {
		host, _, _ := strings.Cut(m.Mirror, "/")
		if first, mirrored := firstEntry[registryKey(host)]; mirrored && host != "" {
			errs = append(errs, field.Invalid(entryPath(i).Child("mirror"), m.Mirror,
				fmt.Sprintf("is on registry %s, which is itself mirrored by %s: images would be rewritten twice", host, entryPath(first))))
		}
	}
	return errs
}

// checkMirror checks a mirror: a registry host, then optional path components.
func checkMirror(path *field.Path, mirror string) field.ErrorList {
	if mirror == "" {
		return field.ErrorList{field.Required(path, "the mirror's registry host and optional path, e.g. mirror.local/hub")}
	}
	host, prefix, hasPrefix := strings.Cut(mirror, "/")
	if !looksLikeRegistry(host) {
		return field.ErrorList{field.Invalid(path, mirror, `must start with a registry host (a name with a "." or a ":", or "localhost"), e.g. mirror.local/hub`)}
	}
	if err := checkRegistryHost(host); err != nil {
		return field.ErrorList{field.Invalid(path, mirror, fmt.Sprintf("registry %q: %v", host, err))}
	}
	if !hasPrefix {
		return nil
	}
	for _, component := range strings.Split(prefix, "/") {
		if !isPathComponent(component) {
			return field.ErrorList{field.Invalid(path, mirror, fmt.Sprintf(
				"path component %q must be lower-case letters and digits, separated by '.', '_', '__' or dashes (a mirror has no tag or digest)", component))}
		}
	}
	return nil
}

// Rewrite returns image pulled from its registry's mirror: the mirror, then the repository (with
// Docker Hub's "library/" made explicit), then the tag and digest unchanged. changed is false and
// image is returned as it is when its registry has no mirror, which includes images already on a
// mirror. An image that is not a valid reference, or whose name would become too long on the
// mirror, is returned unchanged with the error.
//
// s is expected to have passed Default and Validate.
func (s *MirrorSpec) Rewrite(image string) (rewritten string, changed bool, err error) {
	ref, err := ParseImageReference(image)
	if err != nil {
		return image, false, err
	}
	mirror, ok := s.mirrorOf(ref.Registry)
	if !ok {
		return image, false, nil
	}
	// The mirror's path prefix lengthens the name; a runtime would refuse one too long.
	if err := checkNameLength(mirror, ref.Repository); err != nil {
		return image, false, fmt.Errorf("cannot mirror %q: %w", image, err)
	}
	return mirror + "/" + ref.Repository + ref.suffix(), true, nil
}

// mirrorOf finds the mirror of registry. A linear search: there are a handful of mirrors.
func (s *MirrorSpec) mirrorOf(registry string) (string, bool) {
	key := registryKey(registry)
	for _, m := range s.Mirrors {
		if registryKey(m.Registry) == key {
			return strings.TrimSuffix(m.Mirror, "/"), true
		}
	}
	return "", false
}

// rewriteImages rewrites each image in place and describes what it did: one warning per distinct
// rewrite, and one per image it could not read (left for the kubelet to refuse). Empty images are
// left to the apiserver's validation.
func (s *MirrorSpec) rewriteImages(images []*string) []string {
	var warnings []string
	seen := map[string]bool{}
	warn := func(w string) {
		if !seen[w] {
			seen[w] = true
			warnings = append(warnings, w)
		}
	}
	for _, image := range images {
		if *image == "" {
			continue
		}
		rewritten, changed, err := s.Rewrite(*image)
		switch {
		case err != nil:
			warn(fmt.Sprintf("image %q left unchanged: %v", *image, err))
		case changed:
			warn(fmt.Sprintf("image %q rewritten to %q", *image, rewritten))
			*image = rewritten
		}
	}
	return warnings
}

// containerImages returns the image fields of a pod spec's containers and init containers.
func containerImages(spec *corev1.PodSpec) []*string {
	images := make([]*string, 0, len(spec.InitContainers)+len(spec.Containers))
	for i := range spec.InitContainers {
		images = append(images, &spec.InitContainers[i].Image)
	}
	for i := range spec.Containers {
		images = append(images, &spec.Containers[i].Image)
	}
	return images
}

// ephemeralImages returns the image fields of a pod spec's ephemeral containers.
func ephemeralImages(spec *corev1.PodSpec) []*string {
	images := make([]*string, 0, len(spec.EphemeralContainers))
	for i := range spec.EphemeralContainers {
		images = append(images, &spec.EphemeralContainers[i].Image)
	}
	return images
}

// mirrorPodAnnotation marks the API copy of a static pod, which the kubelet owns: changing it
// would make it differ from the pod the kubelet actually runs.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// ephemeralContainersSubresource is where ephemeral containers are added to a running pod.
const ephemeralContainersSubresource = "ephemeralcontainers"

// podMirrors rewrites the images of Pods. A pod's containers and init containers are rewritten
// through the pods resource; ephemeral containers can only be added through the
// pods/ephemeralcontainers subresource, so they are rewritten there and only there: the apiserver
// refuses a pod update that changes them.
type podMirrors struct{ spec *MirrorSpec }

func (d podMirrors) Default(_ context.Context, req *webhook.Request, pod *corev1.Pod) ([]string, error) {
	if _, isMirrorPod := pod.Annotations[mirrorPodAnnotation]; isMirrorPod || pod.DeletionTimestamp != nil {
		return nil, nil
	}
	if req.SubResource == ephemeralContainersSubresource {
		return d.spec.rewriteImages(ephemeralImages(&pod.Spec)), nil
	}
	return d.spec.rewriteImages(containerImages(&pod.Spec)), nil
}

// workload is an API object that embeds a pod template.
type workload interface {
	runtime.Object
	GetDeletionTimestamp() *metav1.Time
}

// templateMirrors rewrites the images of the pod template of a workload of type T. Rewriting the
// template, not only the pods it stamps out, keeps what `kubectl get -o yaml` shows equal to what
// runs. Pod templates cannot hold ephemeral containers, so only containers and init containers
// are looked at.
type templateMirrors[T workload] struct {
	spec     *MirrorSpec
	template func(T) *corev1.PodSpec
}

func (d templateMirrors[T]) Default(_ context.Context, _ *webhook.Request, obj T) ([]string, error) {
	if obj.GetDeletionTimestamp() != nil {
		return nil, nil // a workload being deleted starts no more pods
	}
	return d.spec.rewriteImages(containerImages(d.template(obj))), nil
}

// mirrorWebhooks describes the image-mirrors webhook for Pods and for every built-in workload with
// a pod template, one registration per resource: a webhook has one kind and one resource.
func mirrorWebhooks(spec *MirrorSpec) []webhook.Webhook {
	pods := webhook.DefaultingHandler[*corev1.Pod](podMirrors{spec})
	ephemeral := mirrorWebhook(corev1.SchemeGroupVersion.WithKind("Pod"), "pods/"+ephemeralContainersSubresource, pods)
	ephemeral.Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
	// Mirror pods only show what the kubelet runs from a file: rewriting their images would
	// change what the API shows, not what runs.
	created := mirrorWebhook(corev1.SchemeGroupVersion.WithKind("Pod"), "pods", pods)
	created.MatchConditions = []admissionregistrationv1.MatchCondition{webhook.NotMirrorPod()}
	return []webhook.Webhook{
		created,
		ephemeral,
		mirrorWebhook(appsv1.SchemeGroupVersion.WithKind("Deployment"), "deployments",
			templated(spec, func(o *appsv1.Deployment) *corev1.PodSpec { return &o.Spec.Template.Spec })),
		mirrorWebhook(appsv1.SchemeGroupVersion.WithKind("StatefulSet"), "statefulsets",
			templated(spec, func(o *appsv1.StatefulSet) *corev1.PodSpec { return &o.Spec.Template.Spec })),
		mirrorWebhook(appsv1.SchemeGroupVersion.WithKind("DaemonSet"), "daemonsets",
			templated(spec, func(o *appsv1.DaemonSet) *corev1.PodSpec { return &o.Spec.Template.Spec })),
		mirrorWebhook(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), "replicasets",
			templated(spec, func(o *appsv1.ReplicaSet) *corev1.PodSpec { return &o.Spec.Template.Spec })),
		mirrorWebhook(batchv1.SchemeGroupVersion.WithKind("Job"), "jobs",
			templated(spec, func(o *batchv1.Job) *corev1.PodSpec { return &o.Spec.Template.Spec })),
		mirrorWebhook(batchv1.SchemeGroupVersion.WithKind("CronJob"), "cronjobs",
			templated(spec, func(o *batchv1.CronJob) *corev1.PodSpec { return &o.Spec.JobTemplate.Spec.Template.Spec })),
	}
}

// mirrorWebhook registers h for one resource under the image-mirrors family's policy.
func mirrorWebhook(gvk schema.GroupVersionKind, resource string, h webhook.Handler) webhook.Webhook {
	return webhook.Webhook{
		Name:           memberName(resource, gvk.Group, ImageMirrorsWebhook),
		Type:           webhook.TypeMutating,
		Kind:           gvk,
		Resource:       resource,
		Scope:          admissionregistrationv1.NamespacedScope,
		Path:           memberPath(ImageMirrorsWebhook, webhook.TypeMutating, gvk, resource),
		Handler:        h,
		FailurePolicy:  MirrorsFailurePolicy,
		TimeoutSeconds: MirrorsTimeoutSeconds,
	}
}

func templated[T workload](spec *MirrorSpec, template func(T) *corev1.PodSpec) webhook.Handler {
	return webhook.DefaultingHandler[T](templateMirrors[T]{spec: spec, template: template})
}
