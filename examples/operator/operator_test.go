package operator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/engine"
	cachev1 "github.com/admitkit/admit/examples/operator/api/v1"
	cachev2 "github.com/admitkit/admit/examples/operator/api/v2"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/webhooktest"
)

func cache(memory string, replicas *int32) *cachev2.Cache {
	return &cachev2.Cache{
		ObjectMeta: metav1.ObjectMeta{Name: "sessions", Namespace: "shop"},
		Spec:       cachev2.CacheSpec{Memory: memory, Replicas: replicas},
	}
}

func ptr[T any](v T) *T { return &v }

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testRegistry(t *testing.T) *webhook.Registry {
	t.Helper()
	reg, err := NewRegistry(Defaults{Image: "registry.example.com/cache:7.2"}, webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestDefaultsFromEnv(t *testing.T) {
	tests := []struct {
		env     map[string]string
		want    Defaults
		wantErr string
	}{
		{env: map[string]string{EnvDefaultImage: " registry.example.com/cache:7.2 "}, want: Defaults{Image: "registry.example.com/cache:7.2"}},
		{env: map[string]string{}, wantErr: "CACHE_DEFAULT_IMAGE is not set"},
		{env: map[string]string{EnvDefaultImage: "registry.example.com/cache"}, wantErr: `CACHE_DEFAULT_IMAGE="registry.example.com/cache": pin a tag or a digest`},
	}
	for _, tt := range tests {
		got, err := DefaultsFromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("env %v: error %v, want %q", tt.env, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("env %v: %+v, %v", tt.env, got, err)
		}
	}
}

func TestDefaulting(t *testing.T) {
	handler := webhook.DefaultingHandler[*cachev2.Cache](Defaults{Image: "registry.example.com/cache:7.2"})
	// The scheme gives the object its apiVersion and kind, as NewRegistry's webhooks get theirs.
	result := webhooktest.Run(t, handler, webhooktest.Create(t, cache("1Gi", nil), webhooktest.Scheme(testScheme(t))))
	var got cachev2.Cache
	result.Decode(t, &got)
	want := cachev2.CacheSpec{Engine: "redis", Image: "registry.example.com/cache:7.2", Replicas: ptr(int32(1)), Memory: "1Gi"}
	if diff := cmp.Diff(want, got.Spec); diff != "" || !result.Allowed {
		t.Errorf("allowed %v, spec (-want +got):\n%s", result.Allowed, diff)
	}
	if diff := cmp.Diff([]string{"spec.image defaulted to registry.example.com/cache:7.2"}, result.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// What is set is kept: nothing to patch.
	set := cache("1Gi", ptr(int32(3)))
	set.Spec.Engine, set.Spec.Image = "memcached", "registry.example.com/cache:7.0"
	if result := webhooktest.Run(t, handler, webhooktest.Create(t, set, webhooktest.Scheme(testScheme(t)))); !result.Allowed || result.Patch != nil {
		t.Errorf("a complete Cache was patched: %s", result.Patch)
	}
}

// Validation answers 422 with a cause per field, which kubectl prints field by field.
func TestValidation(t *testing.T) {
	handler := webhook.ValidatingHandler[*cachev2.Cache](Limits{})
	scheme := webhooktest.Scheme(testScheme(t))
	withEngine := func(c *cachev2.Cache, engine string) *cachev2.Cache { c.Spec.Engine = engine; return c }
	tests := []struct {
		name       string
		req        *webhook.Request
		wantFields []string
		wantInMsg  string
	}{
		{name: "every problem at once", req: func() *webhook.Request {
			bad := withEngine(cache("lots", ptr(int32(12))), "etcd")
			bad.Spec.Image = "cache:latest"
			return webhooktest.Create(t, bad, scheme)
		}(), wantFields: []string{"spec.engine", "spec.replicas", "spec.memory", "spec.image"}},
		{name: "the engine is immutable", req: webhooktest.Update(t, withEngine(cache("1Gi", nil), "memcached"), withEngine(cache("1Gi", nil), "redis"), scheme),
			wantFields: []string{"spec.engine"}, wantInMsg: `spec.engine: Invalid value: "memcached": field is immutable`},
		{name: "memory cannot shrink", req: webhooktest.Update(t, cache("1Gi", nil), cache("2Gi", nil), scheme),
			wantFields: []string{"spec.memory"}, wantInMsg: "spec.memory: Forbidden: cannot shrink from 2Gi to 1Gi"},
		{name: "memory may grow", req: webhooktest.Update(t, cache("4Gi", nil), cache("2Gi", nil), scheme)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result := webhooktest.Run(t, handler, tt.req)
			if len(tt.wantFields) == 0 {
				if !result.Allowed {
					t.Fatalf("denied: %+v", result.Status)
				}
				return
			}
			if result.Allowed || result.Status == nil || result.Status.Code != 422 || result.Status.Details == nil {
				t.Fatalf("result %+v", result)
			}
			var fields []string
			for _, c := range result.Status.Details.Causes {
				fields = append(fields, c.Field)
			}
			if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
			if !strings.Contains(result.Status.Message, tt.wantInMsg) {
				t.Errorf("message %q, want it to contain %q", result.Status.Message, tt.wantInMsg)
			}
		})
	}
}

// The whole registry as kube-apiserver calls it: defaults first, then validation of the
// defaulted object, with the apiserver's message.
func TestRegistryAsTheAPIServerCallsIt(t *testing.T) {
	reg := testRegistry(t)
	scheme := webhooktest.Scheme(testScheme(t))
	admitted := webhooktest.Admit(t, reg, webhooktest.Create(t, cache("1Gi", nil), scheme), webhooktest.AdmitOptions{})
	if !admitted.Allowed || !strings.Contains(string(admitted.Object), `"image":"registry.example.com/cache:7.2"`) {
		t.Errorf("admitted: %+v\n%s", admitted.Status, admitted.Object)
	}
	denied := webhooktest.Admit(t, reg, webhooktest.Create(t, cache("", nil), scheme), webhooktest.AdmitOptions{})
	const want = `admission webhook "limits.caches.caching.example.com" denied the request: Cache.caching.example.com "sessions" is invalid: spec.memory: Required value: the memory per replica, such as 512Mi`
	if denied.Allowed || denied.Status.Message != want {
		t.Errorf("denied: %q\nwant %q", denied.Status.Message, want)
	}
}

// The Pod webhook is called for the Pods that ask for a cache only: its objectSelector leaves
// the others out, its match condition mirror pods.
func TestClientsWebhookSeesOnlyCacheClients(t *testing.T) {
	reg := testRegistry(t)
	pod := func(labels, annotations map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Labels: labels, Annotations: annotations},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.example.com/web:1.0"}}},
		}
	}
	client := map[string]string{ClientLabel: "sessions"}
	tests := []struct {
		name    string
		pod     *corev1.Pod
		wantEnv []corev1.EnvVar
		called  bool
	}{
		{"a cache client", pod(client, nil), []corev1.EnvVar{{Name: EnvCacheAddress, Value: "sessions.shop.svc:6379"}}, true},
		{"any other Pod", pod(map[string]string{"app": "web"}, nil), nil, false},
		{"a mirror pod", pod(client, map[string]string{webhook.MirrorPodAnnotation: "0123"}), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result := webhooktest.Admit(t, reg, webhooktest.Create(t, tt.pod), webhooktest.AdmitOptions{})
			if !result.Allowed {
				t.Fatalf("denied: %+v", result.Status)
			}
			var got corev1.Pod
			if err := json.Unmarshal(result.Object, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantEnv, got.Spec.Containers[0].Env); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
			if called := calledWebhook(result, ClientsWebhookName); called != tt.called {
				t.Errorf("webhook called: %v, want %v", called, tt.called)
			}
		})
	}
}

func calledWebhook(result *webhooktest.Result, name string) bool {
	for _, w := range result.Rows {
		if w.Name == name && w.Outcome != engine.OutcomeSkipped {
			return true
		}
	}
	return false
}

// Conversion is one call of the test kit each way, through the registry's conversion webhook
// as kube-apiserver sends it a ConversionReview.
func TestConversion(t *testing.T) {
	reg := testRegistry(t)
	v1 := &cachev1.Cache{
		TypeMeta:   metav1.TypeMeta{APIVersion: cachev1.GroupVersion().String(), Kind: "Cache"},
		ObjectMeta: metav1.ObjectMeta{Name: "sessions", ResourceVersion: "9"},
		Spec:       cachev1.CacheSpec{Engine: "redis", Image: "c:1", Size: "medium"},
	}
	v2 := webhooktest.Convert[cachev2.Cache](t, reg, cachev2.GroupVersion().String(), v1)
	wantV2 := cachev2.Cache{
		TypeMeta: metav1.TypeMeta{APIVersion: cachev2.GroupVersion().String(), Kind: "Cache"}, ObjectMeta: v1.ObjectMeta,
		Spec: cachev2.CacheSpec{Engine: "redis", Image: "c:1", Replicas: ptr(int32(3)), Memory: "2Gi"},
	}
	if diff := cmp.Diff([]cachev2.Cache{wantV2}, v2); diff != "" {
		t.Errorf("v1 -> v2 (-want +got):\n%s", diff)
	}
	if back := webhooktest.Convert[cachev1.Cache](t, reg, cachev1.GroupVersion().String(), &v2[0]); !cmp.Equal([]cachev1.Cache{*v1}, back) {
		t.Errorf("v2 -> v1: %s", cmp.Diff([]cachev1.Cache{*v1}, back))
	}
	// A v2 object no size describes reads as large in v1: never smaller than it is.
	odd := &cachev2.Cache{TypeMeta: wantV2.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: "odd"}, Spec: cachev2.CacheSpec{Replicas: ptr(int32(2)), Memory: "3Gi"}}
	if got := webhooktest.Convert[cachev1.Cache](t, reg, cachev1.GroupVersion().String(), odd); got[0].Spec.Size != "large" {
		t.Errorf("an odd size: %+v", got[0].Spec)
	}
	huge := v1.DeepCopy()
	huge.Spec.Size = "huge"
	if msg := webhooktest.ConversionFailure(t, reg, cachev2.GroupVersion().String(), huge); !strings.Contains(msg, `spec.size "huge": not small, medium or large`) {
		t.Errorf("an unknown size: %s", msg)
	}
}

// The configurations the registry writes lint clean, at every severity, with the CRD they are
// deployed with.
func TestConfigurationsLintClean(t *testing.T) {
	opts := webhook.ConfigOptions{Name: "cache-webhook", ClientConfig: webhook.ClientConfig{Service: "cache-webhook", Namespace: "cache-system", CABundle: testCA(t)}}
	manifest, err := testRegistry(t).ConfigurationsYAML(opts)
	if err != nil {
		t.Fatal(err)
	}
	crd, err := os.ReadFile(filepath.Join("config", "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	manifest = append(append(crd, []byte("\n---\n")...), manifest...)
	set, err := config.Parse("cache-webhook.yaml", manifest)
	if err != nil {
		t.Fatal(err)
	}
	findings, err := lint.Run(set, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range lint.AtLeast(findings, lint.Info) {
		t.Error(f)
	}
}

func testCA(t *testing.T) []byte {
	t.Helper()
	ca, err := certs.NewCA("cache-webhook", 365*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return ca.CertPEM()
}
