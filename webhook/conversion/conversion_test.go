package conversion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WidgetV1 keeps a size as a string like "3x"; WidgetV2 (the hub) as a number.
type WidgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size string `json:"size"`
	} `json:"spec"`
}

type WidgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size"`
	} `json:"spec"`
}

func widgetHub(t *testing.T) *Hub[WidgetV2] {
	t.Helper()
	hub := NewHub[WidgetV2]("Widget")
	err := AddVersion(hub, "example.com/v1",
		func(v *WidgetV1, h *WidgetV2) error {
			n, err := strconv.Atoi(strings.TrimSuffix(v.Spec.Size, "x"))
			if err != nil || !strings.HasSuffix(v.Spec.Size, "x") {
				return errors.New("spec.size " + v.Spec.Size + " is not <n>x")
			}
			h.Spec.Size = n
			return nil
		},
		func(h *WidgetV2, v *WidgetV1) error {
			v.Spec.Size = strconv.Itoa(h.Spec.Size) + "x"
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := AddHubVersion(hub, "example.com/v2"); err != nil {
		t.Fatal(err)
	}
	return hub
}

// noTypeMeta decodes as an object but would lose apiVersion and kind.
type noTypeMeta struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct{} `json:"spec"`
}

// AddVersion refuses what would fail on the first review, every problem at once.
func TestAddVersionRefusesWhatCannotConvert(t *testing.T) {
	identity := func(*WidgetV1, *WidgetV2) error { return nil }
	back := func(*WidgetV2, *WidgetV1) error { return nil }
	tests := []struct {
		name string
		add  func(hub *Hub[WidgetV2]) error
		want string
	}{
		{"twice", func(hub *Hub[WidgetV2]) error {
			_ = AddVersion(hub, "example.com/v1", identity, back)
			return AddVersion(hub, "example.com/v1", identity, back)
		}, "conversion for Widget: version example.com/v1 registered twice"},
		{"no group", func(hub *Hub[WidgetV2]) error { return AddVersion(hub, "v1", identity, back) },
			`apiVersion "v1": want GROUP/VERSION with the CRD's group, e.g. example.com/v1`},
		{"a one-word group", func(hub *Hub[WidgetV2]) error { return AddHubVersion(hub, "example/v2") },
			`apiVersion "example/v2": want GROUP/VERSION`},
		{"no TypeMeta", func(hub *Hub[WidgetV2]) error {
			return AddVersion(hub, "example.com/v1", func(*noTypeMeta, *WidgetV2) error { return nil }, func(*WidgetV2, *noTypeMeta) error { return nil })
		}, "the type conversion.noTypeMeta of example.com/v1 has no apiVersion, kind: embed metav1.TypeMeta and metav1.ObjectMeta"},
		{"a pointer type", func(hub *Hub[WidgetV2]) error {
			return AddVersion(hub, "example.com/v1", func(**WidgetV1, *WidgetV2) error { return nil }, func(*WidgetV2, **WidgetV1) error { return nil })
		}, "the type *conversion.WidgetV1 of example.com/v1 is not a struct"},
		{"no functions", func(hub *Hub[WidgetV2]) error { return AddVersion[WidgetV2, WidgetV1](hub, "example.com/v1", nil, nil) },
			"conversion for Widget example.com/v1: both toHub and fromHub are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.add(NewHub[WidgetV2]("Widget"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
	pointerHub := NewHub[*WidgetV2]("Widget")
	if err := AddHubVersion(pointerHub, "example.com/v2"); err == nil || !strings.Contains(err.Error(), "the hub type *conversion.WidgetV2 is not a struct") {
		t.Errorf("a pointer hub: %v", err)
	}
}

func TestHubConvertsBothWaysKeepingMetadata(t *testing.T) {
	hub := widgetHub(t)
	v1 := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"},"resourceVersion":"7","futureMeta":"kept"},"spec":{"size":"3x"}}`
	out, err := hub.Convert(context.Background(), []byte(v1), "example.com/v2")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"},"resourceVersion":"7","futureMeta":"kept"},"spec":{"size":3}}`
	if diff := cmp.Diff(decode(t, want), decode(t, string(out))); diff != "" {
		t.Fatalf("v1 -> v2 (-want +got):\n%s", diff)
	}
	back, err := hub.Convert(context.Background(), out, "example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decode(t, v1), decode(t, string(back))); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	same, err := hub.Convert(context.Background(), []byte(v1), "example.com/v1")
	if err != nil || string(same) != v1 {
		t.Fatalf("same-version conversion changed the object: %s, %v", same, err)
	}
}

func TestHubErrors(t *testing.T) {
	hub := widgetHub(t)
	tests := []struct {
		name, object, to, want string
	}{
		{"unknown source version", `{"apiVersion":"example.com/v9","kind":"Widget"}`, "example.com/v1", "cannot convert from example.com/v9: not one of example.com/v1, example.com/v2"},
		{"unknown target version", `{"apiVersion":"example.com/v1","kind":"Widget"}`, "example.com/v3", "cannot convert to example.com/v3"},
		{"wrong kind", `{"apiVersion":"example.com/v1","kind":"Gadget"}`, "example.com/v2", `cannot convert kind "Gadget": this converter handles "Widget"`},
		{"not JSON", `{`, "example.com/v2", "decoding object"},
		{"user conversion error", `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"size":"big"}}`, "example.com/v2", "converting example.com/v1 to the hub: spec.size big is not <n>x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := hub.Convert(context.Background(), []byte(tt.object), tt.to)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if err := AddVersion(hub, "example.com/v1", func(*WidgetV1, *WidgetV2) error { return nil }, func(*WidgetV2, *WidgetV1) error { return nil }); err == nil {
		t.Fatal("registering a version twice succeeded")
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

func review(objects ...string) []byte {
	raws := make([]runtime.RawExtension, len(objects))
	for i, o := range objects {
		raws[i] = runtime.RawExtension{Raw: []byte(o)}
	}
	b, _ := json.Marshal(apiextensionsv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request:  &apiextensionsv1.ConversionRequest{UID: "u1", DesiredAPIVersion: "example.com/v2", Objects: raws},
	})
	return b
}

func TestHTTPHandler(t *testing.T) {
	h := NewHTTPHandler(widgetHub(t), Options{MaxRequestBytes: 4096})
	ok := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":"2x"}}`
	bad := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"b"},"spec":{"size":"huge"}}`
	tests := []struct {
		name        string
		contentType string
		body        []byte
		wantCode    int
		wantResult  metav1.Status
		wantObjects int
		wantMessage string
	}{
		{"converts every object", "application/json", review(ok, ok), 200, metav1.Status{Status: "Success"}, 2, ""},
		{"one failure fails all", "application/json", review(ok, bad), 200, metav1.Status{Status: "Failure", Message: "objects[1]: converting example.com/v1 to the hub: spec.size huge is not <n>x"}, 0, ""},
		{"wrong media type", "text/yaml", review(ok), 415, metav1.Status{}, 0, `Content-Type "text/yaml" is not supported`},
		{"empty", "application/json", nil, 400, metav1.Status{}, 0, "request body is empty"},
		{"admission review", "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}`), 400, metav1.Status{}, 0, "expected apiextensions.k8s.io/v1, Kind=ConversionReview"},
		{"too large", "application/json", bytes.Repeat([]byte(" "), 5000), 413, metav1.Status{}, 0, "exceeds the limit of 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(tt.body))
			r.Header.Set("Content-Type", tt.contentType)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.wantCode || w.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("code %d content type %q, want %d application/json: %s", w.Code, w.Header().Get("Content-Type"), tt.wantCode, w.Body.String())
			}
			if tt.wantCode != 200 {
				var s metav1.Status
				if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil || !strings.Contains(s.Message, tt.wantMessage) {
					t.Fatalf("status %+v (%v), want message containing %q", s, err, tt.wantMessage)
				}
				return
			}
			var got apiextensionsv1.ConversionReview
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Response.UID != "u1" || got.APIVersion != "apiextensions.k8s.io/v1" {
				t.Fatalf("uid %q apiVersion %q", got.Response.UID, got.APIVersion)
			}
			if diff := cmp.Diff(tt.wantResult, got.Response.Result); diff != "" {
				t.Fatalf("result (-want +got):\n%s", diff)
			}
			if len(got.Response.ConvertedObjects) != tt.wantObjects {
				t.Fatalf("%d objects, want %d", len(got.Response.ConvertedObjects), tt.wantObjects)
			}
		})
	}
}

// A Hub says its kind and hub version, for webhook.Registry to check it against its CRD; the
// hub type has one version.
func TestHubDescribesItself(t *testing.T) {
	hub := widgetHub(t)
	if diff := cmp.Diff([]string{"Widget", "example.com/v2"}, []string{hub.Kind(), hub.HubVersion()}); diff != "" {
		t.Errorf("kind and hub version (-want +got):\n%s", diff)
	}
	err := AddHubVersion(hub, "example.com/v3")
	if want := "conversion for Widget: the hub type is version example.com/v2 already, not example.com/v3 too"; err == nil || err.Error() != want {
		t.Errorf("a second hub version: %v, want %q", err, want)
	}
	if v := NewHub[WidgetV2]("Widget").HubVersion(); v != "" {
		t.Errorf("a new hub's hub version: %q", v)
	}
}

// BoxV1 lacks v2's capacity: boxHub's conversions keep it in an annotation of v1 objects, so
// that v2 -> v1 -> v2 loses nothing.
type BoxV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Color string `json:"color"`
	} `json:"spec"`
}

type BoxV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Color    string `json:"color"`
		Capacity int    `json:"capacity,omitempty"`
	} `json:"spec"`
}

const capacityAnnotation = "example.com/v2-capacity"

// boxHub converts boxes; toHub and fromHub, when not nil, replace the stashing conversions of
// v1, to see what the Hub makes of other functions' metadata.
func boxHub(t *testing.T, toHub func(*BoxV1, *BoxV2) error, fromHub func(*BoxV2, *BoxV1) error) *Hub[BoxV2] {
	t.Helper()
	if toHub == nil {
		toHub = func(v *BoxV1, h *BoxV2) error {
			h.Spec.Color = v.Spec.Color
			if s, ok := h.Annotations[capacityAnnotation]; ok {
				n, err := strconv.Atoi(s)
				if err != nil {
					return fmt.Errorf("annotation %s: %w", capacityAnnotation, err)
				}
				h.Spec.Capacity = n
				delete(h.Annotations, capacityAnnotation)
			}
			return nil
		}
	}
	if fromHub == nil {
		fromHub = func(h *BoxV2, v *BoxV1) error {
			v.Spec.Color = h.Spec.Color
			if h.Spec.Capacity != 0 {
				if v.Annotations == nil {
					v.Annotations = map[string]string{}
				}
				v.Annotations[capacityAnnotation] = strconv.Itoa(h.Spec.Capacity)
			}
			return nil
		}
	}
	hub := NewHub[BoxV2]("Box")
	if err := AddVersion(hub, "example.com/v1", toHub, fromHub); err != nil {
		t.Fatal(err)
	}
	if err := AddHubVersion(hub, "example.com/v2"); err != nil {
		t.Fatal(err)
	}
	return hub
}

// A round trip through a version lacking a field keeps the field when the conversions stash it in
// an annotation: the Hub keeps the labels and annotations the functions leave.
func TestHubRoundTripKeepsWhatConversionsStashInAnnotations(t *testing.T) {
	hub := boxHub(t, nil, nil)
	v2 := `{"apiVersion":"example.com/v2","kind":"Box","metadata":{"name":"b","uid":"u","resourceVersion":"4","labels":{"app":"shop"},"annotations":{"note":"fragile"}},"spec":{"color":"red","capacity":7}}`
	v1, err := hub.Convert(context.Background(), []byte(v2), "example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	wantV1 := `{"apiVersion":"example.com/v1","kind":"Box","metadata":{"name":"b","uid":"u","resourceVersion":"4","labels":{"app":"shop"},"annotations":{"note":"fragile","example.com/v2-capacity":"7"}},"spec":{"color":"red"}}`
	if diff := cmp.Diff(decode(t, wantV1), decode(t, string(v1))); diff != "" {
		t.Fatalf("v2 -> v1 (-want +got):\n%s", diff)
	}
	back, err := hub.Convert(context.Background(), v1, "example.com/v2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decode(t, v2), decode(t, string(back))); diff != "" {
		t.Fatalf("v2 -> v1 -> v2 (-want +got):\n%s", diff)
	}
}

// The converted object's metadata is the original's but for its labels and annotations, which
// are what the conversion functions left, as kube-apiserver takes them from a conversion webhook.
func TestHubKeepsTheLabelsAndAnnotationsTheFunctionsLeave(t *testing.T) {
	const meta = `"name":"b","namespace":"ns","uid":"u","resourceVersion":"4","generation":2,"futureMeta":"kept"`
	v2 := `{"apiVersion":"example.com/v2","kind":"Box","metadata":{` + meta + `,"labels":{"app":"shop"},"annotations":{"note":"fragile"}},"spec":{"color":"red"}}`
	ignore := func(h *BoxV2, v *BoxV1) error { v.Spec.Color = h.Spec.Color; return nil }
	tests := []struct {
		name    string
		fromHub func(*BoxV2, *BoxV1) error
		// object is the v2 object converted to v1, v2 when empty.
		object string
		// wantMeta is the converted object's metadata.
		wantMeta string
		wantErr  string
	}{
		{name: "functions that ignore metadata keep labels and annotations", fromHub: ignore,
			wantMeta: `{` + meta + `,"labels":{"app":"shop"},"annotations":{"note":"fragile"}}`},
		{name: "a function copying the metadata keeps them", fromHub: func(h *BoxV2, v *BoxV1) error {
			v.ObjectMeta = h.ObjectMeta
			return nil
		}, wantMeta: `{` + meta + `,"labels":{"app":"shop"},"annotations":{"note":"fragile"}}`},
		{name: "a function deleting the only annotation leaves none", fromHub: func(h *BoxV2, v *BoxV1) error {
			delete(v.Annotations, "note")
			return nil
		}, wantMeta: `{` + meta + `,"labels":{"app":"shop"}}`},
		{name: "a function adding a label adds it", fromHub: func(h *BoxV2, v *BoxV1) error {
			v.Labels["tier"] = "gold"
			return nil
		}, wantMeta: `{` + meta + `,"labels":{"app":"shop","tier":"gold"},"annotations":{"note":"fragile"}}`},
		{name: "a function clearing the metadata leaves no labels or annotations, and the rest of the original's", fromHub: func(h *BoxV2, v *BoxV1) error {
			v.ObjectMeta = metav1.ObjectMeta{}
			return nil
		}, wantMeta: `{` + meta + `}`},
		{name: "other metadata the functions change is the original's", fromHub: func(h *BoxV2, v *BoxV1) error {
			v.Name, v.Namespace, v.UID, v.ResourceVersion, v.Generation = "other", "other", "other", "99", 9
			v.Finalizers = []string{"example.com/f"}
			return nil
		}, wantMeta: `{` + meta + `,"labels":{"app":"shop"},"annotations":{"note":"fragile"}}`},
		{name: "an object without metadata gets the labels the functions set", fromHub: func(h *BoxV2, v *BoxV1) error {
			v.Labels = map[string]string{"converted": "yes"}
			return nil
		}, object: `{"apiVersion":"example.com/v2","kind":"Box","spec":{"color":"red"}}`, wantMeta: `{"labels":{"converted":"yes"}}`},
		{name: "an object without metadata converted without labels has none", fromHub: ignore,
			object: `{"apiVersion":"example.com/v2","kind":"Box","spec":{"color":"red"}}`},
		{name: "an invalid label value is refused as kube-apiserver refuses it", fromHub: func(h *BoxV2, v *BoxV1) error {
			v.Labels["app"] = "not valid!"
			return nil
		}, wantErr: `converting to example.com/v1: invalid metadata, which kube-apiserver refuses: metadata.labels: Invalid value: "not valid!": a valid label must be an empty string or consist of alphanumeric characters`},
		{name: "an invalid annotation key is refused as kube-apiserver refuses it", fromHub: func(h *BoxV2, v *BoxV1) error {
			v.Annotations["-bad"] = "x"
			return nil
		}, wantErr: `converting to example.com/v1: invalid metadata, which kube-apiserver refuses: metadata.annotation: Invalid value: "-bad": name part must consist of alphanumeric characters`},
		{name: "invalid labels the functions leave as they were are not checked", fromHub: ignore,
			object:   `{"apiVersion":"example.com/v2","kind":"Box","metadata":{"name":"b","labels":{"app":"not valid!"}},"spec":{"color":"red"}}`,
			wantMeta: `{"name":"b","labels":{"app":"not valid!"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			object := tt.object
			if object == "" {
				object = v2
			}
			out, err := boxHub(t, nil, tt.fromHub).Convert(context.Background(), []byte(object), "example.com/v1")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := decode(t, string(out)).(map[string]any)
			var want any
			if tt.wantMeta != "" {
				want = decode(t, tt.wantMeta)
			}
			if diff := cmp.Diff(want, got["metadata"]); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
		})
	}
}

// toHub sees the source object's metadata and its changes reach the converted object: a stash
// annotation read and deleted is gone.
func TestHubToHubSeesAndChangesMetadata(t *testing.T) {
	v1 := `{"apiVersion":"example.com/v1","kind":"Box","metadata":{"name":"b","annotations":{"example.com/v2-capacity":"3","note":"fragile"}},"spec":{"color":"blue"}}`
	out, err := boxHub(t, nil, nil).Convert(context.Background(), []byte(v1), "example.com/v2")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"example.com/v2","kind":"Box","metadata":{"name":"b","annotations":{"note":"fragile"}},"spec":{"color":"blue","capacity":3}}`
	if diff := cmp.Diff(decode(t, want), decode(t, string(out))); diff != "" {
		t.Fatalf("v1 -> v2 (-want +got):\n%s", diff)
	}
}
