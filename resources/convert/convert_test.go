package convert

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/dispatch"
)

// Converter is what the dispatcher takes for matchPolicy Equivalent.
var _ dispatch.Converter = (*Converter)(nil)

var (
	hpaV1Kind       = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	hpaV2Kind       = schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
	coreEventKind   = schema.GroupVersionKind{Version: "v1", Kind: "Event"}
	eventsEventKind = schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}
)

// asValue decodes JSON for a comparison by value.
func asValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return v
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestConvertMatchesAPIServer converts objects read from kube-apiserver 1.36 through one version
// and compares with the same object read through the other. Each object was created through the
// version converted from (testdata/<object>.<version>.json, server-side managedFields removed);
// test/e2e repeats this against a live apiserver.
func TestConvertMatchesAPIServer(t *testing.T) {
	tests := []struct {
		object   string
		from, to string
		kind     schema.GroupVersionKind
	}{
		// Every v2 field: metrics of each type, behavior with a tolerance, current metrics, conditions.
		{object: "hpa-created-v2", from: "v2", to: "v1", kind: hpaV1Kind},
		// Annotated metrics before the CPU target, a partial behavior, an undecodable conditions
		// annotation and a tolerance annotation that are dropped.
		{object: "hpa-created-v1", from: "v1", to: "v2", kind: hpaV2Kind},
		{object: "hpa-created-v1", from: "v2", to: "v1", kind: hpaV1Kind},
		// No target in v1: the implied 80% CPU utilization.
		{object: "hpa-no-target", from: "v1", to: "v2", kind: hpaV2Kind},
		{object: "hpa-no-target", from: "v2", to: "v1", kind: hpaV1Kind},
		{object: "event-created-core", from: "core", to: "events", kind: eventsEventKind},
		{object: "event-created-core", from: "events", to: "core", kind: coreEventKind},
		{object: "event-created-events", from: "events", to: "core", kind: coreEventKind},
		{object: "event-created-events", from: "core", to: "events", kind: eventsEventKind},
	}
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.object+" "+tt.from+" to "+tt.to, func(t *testing.T) {
			in := readTestdata(t, tt.object+"."+tt.from+".json")
			want := readTestdata(t, tt.object+"."+tt.to+".json")
			got, err := c.Convert(context.Background(), in, tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(asValue(t, want), asValue(t, got)); diff != "" {
				t.Errorf("converted (-apiserver +admit):\n%s", diff)
			}
		})
	}
}

func TestConvertHorizontalPodAutoscaler(t *testing.T) {
	tests := []struct {
		name string
		in   string
		to   schema.GroupVersionKind
		want string
	}{
		{
			name: "a second CPU utilization target is dropped, as in the apiserver",
			in: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":2,"metrics":[
				{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":40}}},
				{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}]}}`,
			to:   hpaV1Kind,
			want: `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":2,"targetCPUUtilizationPercentage":40},"status":{"currentReplicas":0,"desiredReplicas":0}}`,
		},
		{
			name: "round-trip annotations a v2 object carries are not kept",
			in:   `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h","annotations":{"autoscaling.alpha.kubernetes.io/metrics":"[]"}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":2}}`,
			to:   hpaV1Kind,
			want: `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":2},"status":{"currentReplicas":0,"desiredReplicas":0}}`,
		},
		{
			name: "an empty behavior annotation gives no behavior; currentCPUUtilizationPercentage becomes a current metric",
			in:   `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h","annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{}"}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":2,"targetCPUUtilizationPercentage":70},"status":{"currentReplicas":1,"desiredReplicas":1,"currentCPUUtilizationPercentage":35}}`,
			to:   hpaV2Kind,
			want: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":2,
				"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}]},
				"status":{"currentReplicas":1,"desiredReplicas":1,"currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":35}}}]}}`,
		},
		{
			name: "metrics of every type keep their fields",
			in: `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h","annotations":{"autoscaling.alpha.kubernetes.io/metrics":` +
				quote(`[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}},`+
					`{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","targetAverageUtilization":50}},`+
					`{"type":"Object","object":{"target":{"kind":"Service","name":"s"},"metricName":"hits","targetValue":"7"}},`+
					`{"type":"External","external":{"metricName":"queue","metricSelector":{"matchLabels":{"q":"a"}},"targetAverageValue":"3"}}]`) +
				`}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":2}}`,
			to: hpaV2Kind,
			want: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"maxReplicas":2,"metrics":[
				{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"1Gi"}}},
				{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","target":{"type":"Utilization","averageUtilization":50}}},
				{"type":"Object","object":{"describedObject":{"kind":"Service","name":"s"},"metric":{"name":"hits"},"target":{"type":"Value","value":"7"}}},
				{"type":"External","external":{"metric":{"name":"queue","selector":{"matchLabels":{"q":"a"}}},"target":{"type":"AverageValue","averageValue":"3"}}}]},
				"status":{"desiredReplicas":0,"currentMetrics":null}}`,
		},
	}
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Convert(context.Background(), json.RawMessage(tt.in), tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(asValue(t, []byte(tt.want)), asValue(t, got)); diff != "" {
				t.Errorf("converted (-want +got):\n%s", diff)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func gadgets(strategy apiextensionsv1.ConversionStrategyType) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Kind: "Gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true}, {Name: "v2", Served: true}, {Name: "v3"},
			},
		},
	}
	if strategy != "" {
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: strategy}
	}
	return crd
}

func TestConvertCustomResources(t *testing.T) {
	const gadget = `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":9007199254740993,"unknown":{"kept":true}}}`
	gadgetV3 := schema.GroupVersionKind{Group: "example.com", Version: "v3", Kind: "Gadget"}
	tests := []struct {
		name    string
		crd     *apiextensionsv1.CustomResourceDefinition
		to      schema.GroupVersionKind
		want    string
		wantErr string
	}{
		{
			name: "strategy None rewrites apiVersion only, to an unserved version too, keeping big integers",
			crd:  gadgets(apiextensionsv1.NoneConverter), to: gadgetV3,
			want: `{"apiVersion":"example.com/v3","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":9007199254740993,"unknown":{"kept":true}}}`,
		},
		{
			name: "no conversion stanza means None",
			crd:  gadgets(""), to: gadgetV3,
			want: `{"apiVersion":"example.com/v3","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":9007199254740993,"unknown":{"kept":true}}}`,
		},
		{
			name: "conversion webhook",
			crd:  gadgets(apiextensionsv1.WebhookConverter), to: gadgetV3,
			wantErr: `converting example.com/v1 Gadget to example.com/v3 Gadget: CustomResourceDefinition "gadgets.example.com" converts with strategy Webhook, which this converter does not call (chain.Converter does)`,
		},
		{
			name: "version the CRD does not list",
			crd:  gadgets(apiextensionsv1.NoneConverter), to: schema.GroupVersionKind{Group: "example.com", Version: "v9", Kind: "Gadget"},
			wantErr: `converting example.com/v1 Gadget to example.com/v9 Gadget: CustomResourceDefinition "gadgets.example.com" has no version "v9"`,
		},
		{
			name: "another kind of the same group",
			crd:  gadgets(apiextensionsv1.NoneConverter), to: schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"},
			wantErr: `no conversion from example.com/v1 Gadget to example.com/v2 Widget is known`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.crd)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Convert(context.Background(), json.RawMessage(gadget), tt.to)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Compared as text: a comparison by value through float64 would hide a lost digit.
			wantCompact, gotCompact := compact(t, tt.want), compact(t, string(got))
			if wantCompact != gotCompact {
				t.Errorf("converted\n got %s\nwant %s", gotCompact, wantCompact)
			}
		})
	}
}

// compact re-encodes JSON with sorted keys and no spaces, keeping numbers as written.
func compact(t *testing.T, s string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestConvertErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		to      schema.GroupVersionKind
		wantErr string
	}{
		{name: "not JSON", in: `{`, to: hpaV2Kind, wantErr: "reading the apiVersion and kind of the object to convert: unexpected end of JSON input"},
		{name: "no kind", in: `{"apiVersion":"autoscaling/v1"}`, to: hpaV2Kind, wantErr: "the object to convert has no apiVersion or no kind"},
		{name: "bad apiVersion", in: `{"apiVersion":"a/b/c","kind":"X"}`, to: hpaV2Kind, wantErr: `the object to convert has apiVersion "a/b/c": unexpected GroupVersion string: a/b/c`},
		{
			name: "unknown pair", in: `{"apiVersion":"apps/v1","kind":"Deployment"}`, to: hpaV2Kind,
			wantErr: "no conversion from apps/v1 Deployment to autoscaling/v2 HorizontalPodAutoscaler is known",
		},
		{
			name: "a version the apiserver does not serve", in: `{"apiVersion":"autoscaling/v2beta2","kind":"HorizontalPodAutoscaler"}`, to: hpaV1Kind,
			wantErr: "no conversion from autoscaling/v2beta2 HorizontalPodAutoscaler to autoscaling/v1 HorizontalPodAutoscaler is known",
		},
		{
			name: "a field of the wrong type", in: `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","spec":{"maxReplicas":"two"}}`, to: hpaV2Kind,
			wantErr: "decoding a v1.HorizontalPodAutoscaler: json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
		},
	}
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Convert(context.Background(), json.RawMessage(tt.in), tt.to)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestConvertToTheSameVersionKeepsTheBytes(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	in := json.RawMessage(`{"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v1", "spec":{"unknown":1}}`)
	got, err := c.Convert(context.Background(), in, hpaV1Kind)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(in) {
		t.Errorf("Convert to the object's own version = %s, want the input unchanged", got)
	}
}

func TestNewErrors(t *testing.T) {
	noKind := gadgets("")
	noKind.Spec.Names.Kind = ""
	other := gadgets("")
	other.Name = "others.example.com"
	tests := []struct {
		name    string
		crds    []*apiextensionsv1.CustomResourceDefinition
		wantErr string
	}{
		{name: "nil", crds: []*apiextensionsv1.CustomResourceDefinition{nil}, wantErr: "CustomResourceDefinition 0 is nil"},
		{name: "no kind", crds: []*apiextensionsv1.CustomResourceDefinition{noKind}, wantErr: `CustomResourceDefinition "gadgets.example.com": spec.group and spec.names.kind are required`},
		{
			name: "two CRDs for one kind", crds: []*apiextensionsv1.CustomResourceDefinition{gadgets(""), other},
			wantErr: `CustomResourceDefinitions "gadgets.example.com" and "others.example.com" both define Gadget.example.com`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.crds...)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
