package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

func TestRegisterConversionRefusals(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	if err := r.RegisterConversion(Conversion{CRD: "gadgets.example.com", Converter: gadgetHub(t)}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    Conversion
		want string
	}{
		{"not a CRD name", Conversion{CRD: "Gadget", Converter: gadgetHub(t)}, `CRD "Gadget": want the CustomResourceDefinition's name, PLURAL.GROUP in lower case`},
		{"no converter", Conversion{CRD: "things.example.com"}, "a Converter is required"},
		{"a nil hub", Conversion{CRD: "things.example.com", Converter: (*conversion.Hub[gadgetV2])(nil)}, "a Converter is required"},
		{"twice", Conversion{CRD: "gadgets.example.com", Path: "/other", Converter: gadgetHub(t)}, "a conversion webhook for gadgets.example.com is already registered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := r.RegisterConversion(tt.c); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := r.CRDConversion("things.example.com", ClientConfig{URL: "https://x"}); err == nil {
		t.Error("CRDConversion for an unregistered CRD succeeded")
	}
}
