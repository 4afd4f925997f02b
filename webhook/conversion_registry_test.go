package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/webhook/conversion"
)

type gadgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Color             string `json:"color"`
}

type gadgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Colors            []string `json:"colors"`
}

func gadgetHub(t *testing.T) *conversion.Hub[gadgetV2] {
	t.Helper()
	hub := conversion.NewHub[gadgetV2]("Gadget")
	if err := conversion.AddHubVersion(hub, "example.com/v2"); err != nil {
		t.Fatal(err)
	}
	err := conversion.AddVersion(hub, "example.com/v1",
		func(v *gadgetV1, h *gadgetV2) error { h.Colors = []string{v.Color}; return nil },
		func(h *gadgetV2, v *gadgetV1) error { v.Color = strings.Join(h.Colors, ","); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return hub
}

func TestRegistryServesConversions(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	if err := r.RegisterConversion(Conversion{CRD: "gadgets.example.com", Converter: gadgetHub(t)}); err != nil {
		t.Fatal(err)
	}
	review := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"example.com/v2",` +
		`"objects":[{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"color":"red"}]}}`
	req := httptest.NewRequest(http.MethodPost, "/convert-gadgets-example-com", bytes.NewReader([]byte(review)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	var got apiextensionsv1.ConversionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.Response == nil {
		t.Fatalf("answer %d: %s", rec.Code, rec.Body)
	}
	if got.Response.Result.Status != metav1.StatusSuccess || len(got.Response.ConvertedObjects) != 1 ||
		!strings.Contains(string(got.Response.ConvertedObjects[0].Raw), `"colors":["red"]`) {
		t.Errorf("response %+v: %s", got.Response, rec.Body)
	}

	conv, err := r.CRDConversion("gadgets.example.com", ClientConfig{Service: "admit", Namespace: "admit-system", CABundle: []byte("PEM")})
	if err != nil {
		t.Fatal(err)
	}
	port, path := int32(443), "/convert-gadgets-example-com"
	want := &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
		ClientConfig:             &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Name: "admit", Namespace: "admit-system", Port: &port, Path: &path}, CABundle: []byte("PEM")},
		ConversionReviewVersions: []string{"v1"},
	}}
	if diff := cmp.Diff(want, conv); diff != "" {
		t.Errorf("CRDConversion (-want +got):\n%s", diff)
	}
	byURL, err := r.CRDConversion("gadgets.example.com", ClientConfig{URL: "https://127.0.0.1:9443/"})
	if err != nil || *byURL.Webhook.ClientConfig.URL != "https://127.0.0.1:9443/convert-gadgets-example-com" {
		t.Errorf("CRDConversion by URL: %+v, %v", byURL, err)
	}
}

// A conversion that cannot convert the CRD is refused at registration, naming the field, and
// CRDConversion writes no stanza for it.
func TestRegisterConversionRefusals(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	if err := r.RegisterConversion(Conversion{CRD: "gadgets.example.com", Converter: gadgetHub(t)}); err != nil {
		t.Fatal(err)
	}
	// An admission webhook tells the kind of things.example.com.
	if err := r.Register(Webhook{Name: "things.example.com", Type: TypeValidating, Kind: schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Thing"},
		Resource: "things", Handler: allowHandler}); err != nil {
		t.Fatal(err)
	}
	identity := func(*gadgetV1, *gadgetV2) error { return nil }
	back := func(*gadgetV2, *gadgetV1) error { return nil }
	hub := func(kind string, hubVersion string, spokes ...string) *conversion.Hub[gadgetV2] {
		h := conversion.NewHub[gadgetV2](kind)
		if hubVersion != "" {
			if err := conversion.AddHubVersion(h, hubVersion); err != nil {
				t.Fatal(err)
			}
		}
		for _, v := range spokes {
			if err := conversion.AddVersion(h, v, identity, back); err != nil {
				t.Fatal(err)
			}
		}
		return h
	}
	tests := []struct {
		name string
		c    Conversion
		want string
	}{
		{"not a CRD name", Conversion{CRD: "Gadget", Converter: gadgetHub(t)},
			`crd: Invalid value: "Gadget": want the CustomResourceDefinition's name, PLURAL.GROUP in lower case, e.g. widgets.example.com`},
		{"no converter", Conversion{CRD: "widgets.example.com"}, `converter: Required value: a *conversion.Hub`},
		{"a nil hub", Conversion{CRD: "widgets.example.com", Converter: (*conversion.Hub[gadgetV2])(nil)}, `converter: Required value: a *conversion.Hub`},
		{"twice", Conversion{CRD: "gadgets.example.com", Path: "/other", Converter: gadgetHub(t)}, `crd: Duplicate value: "gadgets.example.com"`},
		{"an empty hub", Conversion{CRD: "widgets.example.com", Converter: hub("Widget", "")},
			`converter: Invalid value: "Widget": the hub converts no version: add them with conversion.AddHubVersion and conversion.AddVersion`},
		{"a hub without its hub version", Conversion{CRD: "widgets.example.com", Converter: hub("Widget", "", "example.com/v1")},
			`converter: Invalid value: "Widget": the version of the hub type is not registered (conversion.AddHubVersion): objects stored in it could not be converted (versions: example.com/v1)`},
		{"a hub for another kind", Conversion{CRD: "widgets.example.com", Converter: hub("Gadget", "example.com/v2", "example.com/v1")},
			`converter: Invalid value: "Gadget": the hub converts kind Gadget, whose plural is "gadgets", not "widgets": a hub for another kind? If Gadget's plural is irregular, set kind`},
		{"a hub for another kind than the webhooks'", Conversion{CRD: "things.example.com", Converter: hub("Gadget", "example.com/v2")},
			`converter: Invalid value: "Gadget": the hub converts kind Gadget, but things.example.com holds Thing (the kind of webhook "things.example.com")`},
		{"a hub for another kind than said", Conversion{CRD: "people.example.com", Kind: "Person", Converter: hub("Gadget", "example.com/v2")},
			`converter: Invalid value: "Gadget": the hub converts kind Gadget, but people.example.com holds Person (its kind)`},
		{"versions of another group", Conversion{CRD: "widgets.example.com", Converter: hub("Widget", "other.example.com/v2", "example.com/v1")},
			`converter: Invalid value: "other.example.com/v2": is not a version of the CRD's group example.com`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.RegisterConversion(tt.c)
			if want := fmt.Sprintf("registering the conversion webhook for %q: %s", tt.c.CRD, tt.want); err == nil || err.Error() != want {
				t.Fatalf("error:\n%v\nwant:\n%s", err, want)
			}
			if tt.c.CRD == "gadgets.example.com" {
				return
			}
			if _, err := r.CRDConversion(tt.c.CRD, ClientConfig{URL: "https://x"}); err == nil || !strings.Contains(err.Error(), "no conversion webhook is registered") {
				t.Errorf("CRDConversion of a refused registration: %v", err)
			}
		})
	}
	// An irregular plural is said with Kind.
	if err := r.RegisterConversion(Conversion{CRD: "geese.example.com", Kind: "Goose", Converter: hub("Goose", "example.com/v2")}); err != nil {
		t.Errorf("an irregular plural: %v", err)
	}
}

// A Hub changed after registration so that it no longer converts the CRD gets no stanza.
func TestCRDConversionChecksTheHubAgain(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	hub := gadgetHub(t)
	if err := r.RegisterConversion(Conversion{CRD: "gadgets.example.com", Converter: hub}); err != nil {
		t.Fatal(err)
	}
	err := conversion.AddVersion(hub, "other.example.com/v3",
		func(*gadgetV1, *gadgetV2) error { return nil }, func(*gadgetV2, *gadgetV1) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.CRDConversion("gadgets.example.com", ClientConfig{URL: "https://x"})
	const want = `the conversion webhook for gadgets.example.com: converter: Invalid value: "other.example.com/v3": is not a version of the CRD's group example.com`
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant:\n%s", err, want)
	}
}
