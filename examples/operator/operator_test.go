package operator

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/webhooktest"
)

func cache(memory string, replicas *int32) *Cache {
	return &Cache{
		TypeMeta:   metav1.TypeMeta{APIVersion: CacheV2.GroupVersion().String(), Kind: "Cache"},
		ObjectMeta: metav1.ObjectMeta{Name: "sessions", Namespace: "shop"},
		Spec:       CacheSpec{Memory: memory, Replicas: replicas},
	}
}

func ptr[T any](v T) *T { return &v }

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
	handler := webhook.DefaultingHandler[*Cache](Defaults{Image: "registry.example.com/cache:7.2"})
	result := webhooktest.Run(t, handler, webhooktest.Create(t, cache("1Gi", nil)))
	var got Cache
	result.Decode(t, &got)
	if !result.Allowed || got.Spec.Image != "registry.example.com/cache:7.2" || got.Spec.Replicas == nil || *got.Spec.Replicas != 1 {
		t.Errorf("result %+v, spec %+v", result, got.Spec)
	}
	if diff := cmp.Diff([]string{"spec.image defaulted to registry.example.com/cache:7.2"}, result.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// What is set is kept: nothing to patch.
	set := cache("1Gi", ptr(int32(3)))
	set.Spec.Image = "registry.example.com/cache:7.0"
	if result := webhooktest.Run(t, handler, webhooktest.Create(t, set)); !result.Allowed || result.Patch != nil {
		t.Errorf("a complete Cache was patched: %s", result.Patch)
	}
}

// Validation answers 422 with a cause per field, which kubectl prints field by field.
func TestValidation(t *testing.T) {
	handler := webhook.ValidatingHandler[*Cache](Limits{})
	bad := cache("lots", ptr(int32(12)))
	bad.Spec.Image = "cache:latest"
	result := webhooktest.Run(t, handler, webhooktest.Create(t, bad))
	if result.Allowed || result.Status == nil || result.Status.Code != 422 || result.Status.Details == nil {
		t.Fatalf("result %+v", result)
	}
	var fields []string
	for _, c := range result.Status.Details.Causes {
		fields = append(fields, c.Field)
	}
	if diff := cmp.Diff([]string{"spec.replicas", "spec.memory", "spec.image"}, fields); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}

	shrink := webhooktest.Update(t, cache("1Gi", ptr(int32(1))), cache("2Gi", ptr(int32(1))))
	result = webhooktest.Run(t, handler, shrink)
	if result.Allowed || !strings.Contains(result.Status.Message, "spec.memory: Forbidden: cannot shrink from 2Gi to 1Gi") {
		t.Errorf("shrinking: %+v", result.Status)
	}
	grow := webhooktest.Update(t, cache("4Gi", ptr(int32(1))), cache("2Gi", ptr(int32(1))))
	if result := webhooktest.Run(t, handler, grow); !result.Allowed {
		t.Errorf("growing: %+v", result.Status)
	}
}

// The whole registry as kube-apiserver calls it: defaults first, then validation of the
// defaulted object, with the apiserver's message.
func TestRegistryAsTheAPIServerCallsIt(t *testing.T) {
	reg, err := NewRegistry(Defaults{Image: "registry.example.com/cache:7.2"}, webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	admitted := webhooktest.Admit(t, reg, webhooktest.Create(t, cache("1Gi", nil)), webhooktest.AdmitOptions{})
	if !admitted.Allowed || !strings.Contains(string(admitted.Object), `"image":"registry.example.com/cache:7.2"`) {
		t.Errorf("admitted: %+v\n%s", admitted.Status, admitted.Object)
	}
	denied := webhooktest.Admit(t, reg, webhooktest.Create(t, cache("", nil)), webhooktest.AdmitOptions{})
	const want = `admission webhook "limits.caches.caching.example.com" denied the request: Cache.caching.example.com "sessions" is invalid: spec.memory: Required value: the memory per replica, such as 512Mi`
	if denied.Allowed || denied.Status.Message != want {
		t.Errorf("denied: %q\nwant %q", denied.Status.Message, want)
	}
}

func TestConversion(t *testing.T) {
	hub, err := NewConverter()
	if err != nil {
		t.Fatal(err)
	}
	v1 := `{"apiVersion":"caching.example.com/v1","kind":"Cache","metadata":{"name":"sessions","resourceVersion":"9"},"spec":{"image":"c:1","size":"medium"}}`
	v2, err := hub.Convert(context.Background(), []byte(v1), "caching.example.com/v2")
	if err != nil {
		t.Fatal(err)
	}
	const wantV2 = `{"apiVersion":"caching.example.com/v2","kind":"Cache","metadata":{"name":"sessions","resourceVersion":"9"},"spec":{"image":"c:1","replicas":3,"memory":"2Gi"}}`
	if string(v2) != wantV2 {
		t.Errorf("v1 -> v2:\n got %s\nwant %s", v2, wantV2)
	}
	back, err := hub.Convert(context.Background(), v2, "caching.example.com/v1")
	if err != nil || string(back) != v1 {
		t.Errorf("v2 -> v1: %s, %v", back, err)
	}
	// A v2 object no size describes reads as large in v1: never smaller than it is.
	odd, err := hub.Convert(context.Background(), []byte(`{"apiVersion":"caching.example.com/v2","kind":"Cache","metadata":{"name":"x"},"spec":{"replicas":2,"memory":"3Gi"}}`), "caching.example.com/v1")
	if err != nil || !strings.Contains(string(odd), `"size":"large"`) {
		t.Errorf("an odd size: %s, %v", odd, err)
	}
	if _, err := hub.Convert(context.Background(), []byte(`{"apiVersion":"caching.example.com/v1","kind":"Cache","metadata":{"name":"x"},"spec":{"size":"huge"}}`), "caching.example.com/v2"); err == nil ||
		!strings.Contains(err.Error(), `spec.size "huge": not small, medium or large`) {
		t.Errorf("an unknown size: %v", err)
	}
}
