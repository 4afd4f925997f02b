package builtin

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/webhook"
)

func testMirrors() Config {
	return Config{ImageMirrors: &MirrorSpec{Mirrors: []Mirror{
		{Registry: "docker.io", Mirror: "mirror.local/hub"},
		{Registry: "quay.io", Mirror: "mirror.local/quay"},
	}}}
}

func podSpec(init []string, images ...string) corev1.PodSpec {
	var spec corev1.PodSpec
	for i, image := range init {
		spec.InitContainers = append(spec.InitContainers, corev1.Container{Name: "init" + string(rune('a'+i)), Image: image})
	}
	for i, image := range images {
		spec.Containers = append(spec.Containers, corev1.Container{Name: "c" + string(rune('a'+i)), Image: image})
	}
	return spec
}

func template(images ...string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: podSpec(nil, images...)}
}

func pod(spec corev1.PodSpec) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       spec,
	}
}

func meta(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: "default"} }

func TestImageMirrorsWebhooks(t *testing.T) {
	hooks := registered(t, testMirrors())
	deleting := metav1.Now()
	mirrorPod := pod(podSpec(nil, "nginx"))
	mirrorPod.Annotations = map[string]string{mirrorPodAnnotation: "abc"}
	terminating := pod(podSpec(nil, "nginx"))
	terminating.DeletionTimestamp = &deleting
	withEphemeral := func(containerImage, ephemeralImage string) *corev1.Pod {
		p := pod(podSpec(nil, containerImage))
		p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: ephemeralImage}}}
		return p
	}

	tests := []struct {
		name         string
		webhook      string
		review       review
		want         any // the object after the patch
		wantWarnings []string
	}{
		{
			name:    "pod containers and init containers",
			webhook: "pods.image-mirrors.admit.dev",
			review:  review{operation: admissionv1.Create, object: pod(podSpec([]string{"busybox:1.36"}, "nginx:1.27", "quay.io/prometheus/node-exporter:v1.8.0", "ghcr.io/org/app:1"))},
			want: pod(podSpec([]string{"mirror.local/hub/library/busybox:1.36"},
				"mirror.local/hub/library/nginx:1.27", "mirror.local/quay/prometheus/node-exporter:v1.8.0", "ghcr.io/org/app:1")),
			wantWarnings: []string{
				`image "busybox:1.36" rewritten to "mirror.local/hub/library/busybox:1.36"`,
				`image "nginx:1.27" rewritten to "mirror.local/hub/library/nginx:1.27"`,
				`image "quay.io/prometheus/node-exporter:v1.8.0" rewritten to "mirror.local/quay/prometheus/node-exporter:v1.8.0"`,
			},
		},
		{
			name:         "the same image twice is reported once",
			webhook:      "pods.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Create, object: pod(podSpec(nil, "nginx", "nginx"))},
			want:         pod(podSpec(nil, "mirror.local/hub/library/nginx", "mirror.local/hub/library/nginx")),
			wantWarnings: []string{`image "nginx" rewritten to "mirror.local/hub/library/nginx"`},
		},
		{
			name:    "pod update",
			webhook: "pods.image-mirrors.admit.dev",
			review:  review{operation: admissionv1.Update, object: pod(podSpec(nil, "nginx:1.28")), oldObject: pod(podSpec(nil, "mirror.local/hub/library/nginx:1.27"))},
			want:    pod(podSpec(nil, "mirror.local/hub/library/nginx:1.28")),
			wantWarnings: []string{
				`image "nginx:1.28" rewritten to "mirror.local/hub/library/nginx:1.28"`,
			},
		},
		{
			name:    "already mirrored",
			webhook: "pods.image-mirrors.admit.dev",
			review:  review{operation: admissionv1.Create, object: pod(podSpec(nil, "mirror.local/hub/library/nginx:1.27"))},
			want:    pod(podSpec(nil, "mirror.local/hub/library/nginx:1.27")),
		},
		{
			name:         "an invalid image is left to the kubelet, with a warning",
			webhook:      "pods.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Create, object: pod(podSpec(nil, "Nginx", "nginx"))},
			want:         pod(podSpec(nil, "Nginx", "mirror.local/hub/library/nginx")),
			wantWarnings: []string{`image "Nginx" left unchanged: invalid image reference "Nginx": repository path component "Nginx" must be lower-case letters and digits, separated by '.', '_', '__' or dashes`, `image "nginx" rewritten to "mirror.local/hub/library/nginx"`},
		},
		{
			name:    "an empty image is left to the apiserver's validation",
			webhook: "pods.image-mirrors.admit.dev",
			review:  review{operation: admissionv1.Create, object: pod(podSpec(nil, ""))},
			want:    pod(podSpec(nil, "")),
		},
		{
			name:    "static pods' mirror pods belong to the kubelet",
			webhook: "pods.image-mirrors.admit.dev",
			review:  review{operation: admissionv1.Create, object: mirrorPod},
			want:    mirrorPod,
		},
		{
			name:    "a terminating pod is left alone",
			webhook: "pods.image-mirrors.admit.dev",
			review:  review{operation: admissionv1.Update, object: terminating, oldObject: terminating},
			want:    terminating,
		},
		{
			name:         "ephemeral containers through their subresource, and nothing else",
			webhook:      "pods-ephemeralcontainers.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Update, subresource: "ephemeralcontainers", object: withEphemeral("nginx", "busybox"), oldObject: pod(podSpec(nil, "nginx"))},
			want:         withEphemeral("nginx", "mirror.local/hub/library/busybox"),
			wantWarnings: []string{`image "busybox" rewritten to "mirror.local/hub/library/busybox"`},
		},
		{
			name:         "a pod update cannot change ephemeral containers, so they are not rewritten",
			webhook:      "pods.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Update, object: withEphemeral("nginx", "busybox"), oldObject: withEphemeral("nginx", "busybox")},
			want:         withEphemeral("mirror.local/hub/library/nginx", "busybox"),
			wantWarnings: []string{`image "nginx" rewritten to "mirror.local/hub/library/nginx"`},
		},
		{
			name:         "deployment",
			webhook:      "deployments.apps.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Create, object: &appsv1.Deployment{ObjectMeta: meta("web"), Spec: appsv1.DeploymentSpec{Template: template("nginx:1.27")}}},
			want:         &appsv1.Deployment{ObjectMeta: meta("web"), Spec: appsv1.DeploymentSpec{Template: template("mirror.local/hub/library/nginx:1.27")}},
			wantWarnings: []string{`image "nginx:1.27" rewritten to "mirror.local/hub/library/nginx:1.27"`},
		},
		{
			name:         "statefulset",
			webhook:      "statefulsets.apps.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Create, object: &appsv1.StatefulSet{ObjectMeta: meta("db"), Spec: appsv1.StatefulSetSpec{Template: template("postgres:16")}}},
			want:         &appsv1.StatefulSet{ObjectMeta: meta("db"), Spec: appsv1.StatefulSetSpec{Template: template("mirror.local/hub/library/postgres:16")}},
			wantWarnings: []string{`image "postgres:16" rewritten to "mirror.local/hub/library/postgres:16"`},
		},
		{
			name:         "daemonset",
			webhook:      "daemonsets.apps.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Update, object: &appsv1.DaemonSet{ObjectMeta: meta("agent"), Spec: appsv1.DaemonSetSpec{Template: template("quay.io/org/agent")}}, oldObject: &appsv1.DaemonSet{ObjectMeta: meta("agent")}},
			want:         &appsv1.DaemonSet{ObjectMeta: meta("agent"), Spec: appsv1.DaemonSetSpec{Template: template("mirror.local/quay/org/agent")}},
			wantWarnings: []string{`image "quay.io/org/agent" rewritten to "mirror.local/quay/org/agent"`},
		},
		{
			name:         "replicaset",
			webhook:      "replicasets.apps.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Create, object: &appsv1.ReplicaSet{ObjectMeta: meta("web-1"), Spec: appsv1.ReplicaSetSpec{Template: template("nginx@" + sha256Digest)}}},
			want:         &appsv1.ReplicaSet{ObjectMeta: meta("web-1"), Spec: appsv1.ReplicaSetSpec{Template: template("mirror.local/hub/library/nginx@" + sha256Digest)}},
			wantWarnings: []string{`image "nginx@` + sha256Digest + `" rewritten to "mirror.local/hub/library/nginx@` + sha256Digest + `"`},
		},
		{
			name:         "job",
			webhook:      "jobs.batch.image-mirrors.admit.dev",
			review:       review{operation: admissionv1.Create, object: &batchv1.Job{ObjectMeta: meta("migrate"), Spec: batchv1.JobSpec{Template: template("user/migrate:v2")}}},
			want:         &batchv1.Job{ObjectMeta: meta("migrate"), Spec: batchv1.JobSpec{Template: template("mirror.local/hub/user/migrate:v2")}},
			wantWarnings: []string{`image "user/migrate:v2" rewritten to "mirror.local/hub/user/migrate:v2"`},
		},
		{
			name:    "cronjob",
			webhook: "cronjobs.batch.image-mirrors.admit.dev",
			review: review{operation: admissionv1.Create, object: &batchv1.CronJob{ObjectMeta: meta("backup"), Spec: batchv1.CronJobSpec{
				Schedule: "@daily", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template("index.docker.io/library/alpine:3")}}}}},
			want: &batchv1.CronJob{ObjectMeta: meta("backup"), Spec: batchv1.CronJobSpec{
				Schedule: "@daily", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template("mirror.local/hub/library/alpine:3")}}}},
			wantWarnings: []string{`image "index.docker.io/library/alpine:3" rewritten to "mirror.local/hub/library/alpine:3"`},
		},
		{
			name:    "a deployment being deleted starts no pods",
			webhook: "deployments.apps.image-mirrors.admit.dev",
			review: review{operation: admissionv1.Update,
				object:    &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", DeletionTimestamp: &deleting}, Spec: appsv1.DeploymentSpec{Template: template("nginx")}},
				oldObject: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}},
			want: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", DeletionTimestamp: &deleting}, Spec: appsv1.DeploymentSpec{Template: template("nginx")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := hooks[tt.webhook]
			if !ok {
				t.Fatalf("no webhook %q registered", tt.webhook)
			}
			resp, patched := send(t, w, tt.review)
			wantOutcome := webhook.OutcomeAllowed
			if mustJSON(t, tt.want) != mustJSON(t, tt.review.object) {
				wantOutcome = webhook.OutcomePatched
			}
			if resp.Outcome != wantOutcome {
				t.Fatalf("outcome %v, want %v (status %+v)", resp.Outcome, wantOutcome, resp.Status)
			}
			if diff := cmp.Diff(tt.wantWarnings, resp.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			var wantObj, gotObj any
			if err := json.Unmarshal([]byte(mustJSON(t, tt.want)), &wantObj); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(patched, &gotObj); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantObj, gotObj); diff != "" {
				t.Errorf("object after the patch (-want +got):\n%s", diff)
			}
		})
	}
}

// The framework patches only what changed, against the object the apiserver sent: fields the Go
// types do not know survive.
func TestImageMirrorsKeepUnknownFields(t *testing.T) {
	hooks := registered(t, testMirrors())
	raw := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"futureField":{"x":1},` +
		`"containers":[{"name":"app","image":"nginx","futureContainerField":true}]}}`
	resp, patched := send(t, hooks["pods.image-mirrors.admit.dev"], review{operation: admissionv1.Create, object: raw})
	if resp.Outcome != webhook.OutcomePatched {
		t.Fatalf("outcome %v, want patched", resp.Outcome)
	}
	want := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"futureField":{"x":1},` +
		`"containers":[{"name":"app","image":"mirror.local/hub/library/nginx","futureContainerField":true}]}}`
	var wantObj, gotObj any
	if err := json.Unmarshal([]byte(want), &wantObj); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(patched, &gotObj); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantObj, gotObj); diff != "" {
		t.Fatalf("object after the patch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(`[{"op":"replace","path":"/spec/containers/0/image","value":"mirror.local/hub/library/nginx"}]`, mustJSON(t, resp.Patch)); diff != "" {
		t.Fatalf("patch (-want +got):\n%s", diff)
	}
}

// The demo Deployment, as the README's first command sends it.
func TestDemoDeploymentIsMirrored(t *testing.T) {
	hooks := registered(t, DemoConfig())
	raw, err := yaml.YAMLToJSON(DemoObjects()[DemoDeployment])
	if err != nil {
		t.Fatal(err)
	}
	resp, patched := send(t, hooks["deployments.apps.image-mirrors.admit.dev"], review{operation: admissionv1.Create, object: string(raw)})
	d := decode[appsv1.Deployment](t, patched)
	var images []string
	for _, c := range d.Spec.Template.Spec.Containers {
		images = append(images, c.Image)
	}
	if diff := cmp.Diff([]string{"mirror.local/hub/library/nginx:1.27", "mirror.local/quay/prometheus/node-exporter:v1.8.0"}, images); diff != "" {
		t.Fatalf("images (-want +got):\n%s", diff)
	}
	if len(resp.Warnings) != 2 {
		t.Fatalf("warnings %q, want one per image", resp.Warnings)
	}
}

func TestMirrorSpecValidate(t *testing.T) {
	tests := []struct {
		name    string
		mirrors []Mirror
		want    field.ErrorList
	}{
		{"valid", []Mirror{{"docker.io", "mirror.local/hub"}, {"quay.io", "localhost:5000"}, {"ghcr.io", "[::1]:5000/ghcr"}}, nil},
		{"empty", nil, field.ErrorList{field.Required(field.NewPath("spec", "mirrors"), "at least one registry and its mirror, e.g. docker.io=mirror.local/hub")}},
		{"registry with a path", []Mirror{{"docker.io/library", "mirror.local/hub"}}, field.ErrorList{
			field.Invalid(field.NewPath("spec", "mirrors").Index(0).Child("registry"), "docker.io/library", "a registry is a host with an optional port, without a path"),
		}},
		{"missing fields", []Mirror{{"", ""}}, field.ErrorList{
			field.Required(field.NewPath("spec", "mirrors").Index(0).Child("registry"), "the registry to mirror, e.g. docker.io"),
			field.Required(field.NewPath("spec", "mirrors").Index(0).Child("mirror"), "the mirror's registry host and optional path, e.g. mirror.local/hub"),
		}},
		{"bad hosts", []Mirror{{"bad_host.io", "mirror.local:http"}}, field.ErrorList{
			field.Invalid(field.NewPath("spec", "mirrors").Index(0).Child("registry"), "bad_host.io", `host name label "bad_host" must be letters and digits, with dashes only inside`),
			field.Invalid(field.NewPath("spec", "mirrors").Index(0).Child("mirror"), "mirror.local:http", `registry "mirror.local:http": port "http" must be a number`),
		}},
		{"mirror without a registry host", []Mirror{{"docker.io", "hub/mirror"}}, field.ErrorList{
			field.Invalid(field.NewPath("spec", "mirrors").Index(0).Child("mirror"), "hub/mirror", `must start with a registry host (a name with a "." or a ":", or "localhost"), e.g. mirror.local/hub`),
		}},
		{"mirror with a tag", []Mirror{{"docker.io", "mirror.local/hub:v1"}}, field.ErrorList{
			field.Invalid(field.NewPath("spec", "mirrors").Index(0).Child("mirror"), "mirror.local/hub:v1",
				`path component "hub:v1" must be lower-case letters and digits, separated by '.', '_', '__' or dashes (a mirror has no tag or digest)`),
		}},
		{"a registry twice, under two names", []Mirror{{"docker.io", "mirror.local/hub"}, {"index.docker.io", "mirror.local/other"}}, field.ErrorList{
			field.Invalid(field.NewPath("spec", "mirrors").Index(1).Child("registry"), "index.docker.io", "is listed twice: spec.mirrors[0] mirrors it already"),
		}},
		{"a mirror on a mirrored registry", []Mirror{{"docker.io", "quay.io/dockerhub"}, {"quay.io", "mirror.local/quay"}}, field.ErrorList{
			field.Invalid(field.NewPath("spec", "mirrors").Index(0).Child("mirror"), "quay.io/dockerhub", "is on registry quay.io, which is itself mirrored by spec.mirrors[1]: images would be rewritten twice"),
		}},
		{"a registry mirrored onto itself", []Mirror{{"registry.example.com", "registry.example.com/cache"}}, field.ErrorList{
			field.Invalid(field.NewPath("spec", "mirrors").Index(0).Child("mirror"), "registry.example.com/cache", "is on registry registry.example.com, which is itself mirrored by spec.mirrors[0]: images would be rewritten twice"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := MirrorSpec{Mirrors: tt.mirrors}
			got := spec.Validate(field.NewPath("spec"))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMirrorSpecDefault(t *testing.T) {
	spec := MirrorSpec{Mirrors: []Mirror{{" Index.Docker.io ", " mirror.local/hub/ "}, {"Quay.io", "mirror.local"}}}
	spec.Default()
	want := []Mirror{{"docker.io", "mirror.local/hub"}, {"Quay.io", "mirror.local"}}
	if diff := cmp.Diff(want, spec.Mirrors); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
