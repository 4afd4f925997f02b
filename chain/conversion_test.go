package chain

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/dispatch"
	webhooktest "github.com/admitkit/admit/internal/webhooktest"
	"github.com/admitkit/admit/resources"
)

// gadgetConverter is a conversion webhook for gadgets.example.com: v1's spec.size is v2's
// spec.count. A gadget's label "convert" asks it to misbehave: "fail" answers a failure,
// "relabel" adds a label (kept), "rename" changes the name (refused), "uid" the uid (refused).
type gadgetConverter struct {
	mu       sync.Mutex
	requests []apiextensionsv1.ConversionRequest
}

func (g *gadgetConverter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review apiextensionsv1.ConversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not a ConversionReview", http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	g.requests = append(g.requests, *review.Request)
	g.mu.Unlock()
	resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	for _, raw := range review.Request.Objects {
		var obj map[string]any
		if err := json.Unmarshal(raw.Raw, &obj); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		meta, _ := obj["metadata"].(map[string]any)
		labels, _ := meta["labels"].(map[string]any)
		switch labels["convert"] {
		case "fail":
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: "gadgets cannot be converted today"}
		case "relabel":
			labels["converted-to"] = strings.ReplaceAll(review.Request.DesiredAPIVersion, "/", ".")
		case "rename":
			meta["name"] = "renamed"
		}
		spec, _ := obj["spec"].(map[string]any)
		if strings.HasSuffix(review.Request.DesiredAPIVersion, "/v2") {
			if size, ok := spec["size"]; ok {
				spec["count"] = size
				delete(spec, "size")
			}
		} else if count, ok := spec["count"]; ok {
			spec["size"] = count
			delete(spec, "count")
		}
		obj["apiVersion"] = review.Request.DesiredAPIVersion
		data, _ := json.Marshal(obj)
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: data})
	}
	if resp.Result.Status == metav1.StatusFailure {
		resp.ConvertedObjects = nil
	}
	review.Response, review.Request = resp, nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

func (g *gadgetConverter) calls() []apiextensionsv1.ConversionRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]apiextensionsv1.ConversionRequest(nil), g.requests...)
}

// serveGadgetConverter serves a gadgetConverter over TLS on loopback, with a certificate for
// 127.0.0.1 and for the service gadget-conversion.system.svc; it returns the server and its CA.
func serveGadgetConverter(t *testing.T) (*httptest.Server, *gadgetConverter, []byte) {
	t.Helper()
	ca, err := certs.NewCA("gadget-conversion", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"gadget-conversion.system.svc"}, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(kp.CertPEM(), kp.KeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	converter := &gadgetConverter{}
	server := httptest.NewUnstartedServer(converter)
	server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	server.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the test's
	server.StartTLS()
	t.Cleanup(server.Close)
	return server, converter, ca.CertPEM()
}

// convertingGadgets serves v1 and v2 of gadgets.example.com, v2 stored, converting through cc.
func convertingGadgets(t *testing.T, cc *apiextensionsv1.WebhookClientConfig) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  conversion:
    strategy: Webhook
    webhook: {conversionReviewVersions: [v1]}
  versions:
  - {name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v2, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`), &crd); err != nil {
		t.Fatal(err)
	}
	crd.Spec.Conversion.Webhook.ClientConfig = cc
	return &crd
}

func gadget(labels string) json.RawMessage {
	return json.RawMessage(`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"default","uid":"u-1"` + labels + `},"spec":{"size":3}}`)
}

// The Converter calls a CRD's conversion webhook as kube-apiserver does and checks its answer
// with kube-apiserver's code: its words for a failure, a changed name, an unplaced service.
func TestConverterCallsConversionWebhooks(t *testing.T) {
	server, webhook, caPEM := serveGadgetConverter(t)
	url := server.URL + "/convert"
	port := int32(443)
	path := "/convert"
	service := &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: "system", Name: "gadget-conversion", Port: &port, Path: &path}}
	placed := func(namespace, name string, _ int32) (string, error) {
		if namespace == "system" && name == "gadget-conversion" {
			return server.Listener.Addr().String(), nil
		}
		return "", ErrServiceNotPlaced
	}
	v2 := schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Gadget"}
	tests := []struct {
		name    string
		cc      *apiextensionsv1.WebhookClientConfig
		conv    Conversion
		object  json.RawMessage
		to      schema.GroupVersionKind
		want    string
		wantErr string
	}{{
		name: "by URL, the caBundle given", cc: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
		object: gadget(""), to: v2,
		want: `{"apiVersion":"example.com/v2","kind":"Gadget","metadata":{"name":"g","namespace":"default","uid":"u-1"},"spec":{"count":3}}`,
	}, {
		name: "through a placed service, the default caBundle", cc: service, conv: Conversion{ServiceResolver: placed, DefaultCABundle: caPEM},
		object: gadget(""), to: v2,
		want: `{"apiVersion":"example.com/v2","kind":"Gadget","metadata":{"name":"g","namespace":"default","uid":"u-1"},"spec":{"count":3}}`,
	}, {
		name: "a label the webhook adds is kept", cc: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
		object: gadget(`,"labels":{"convert":"relabel"}`), to: v2,
		want: `{"apiVersion":"example.com/v2","kind":"Gadget","metadata":{"labels":{"convert":"relabel","converted-to":"example.com.v2"},"name":"g","namespace":"default","uid":"u-1"},"spec":{"count":3}}`,
	}, {
		name: "the same version is not sent", cc: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
		object: gadget(`,"labels":{"convert":"fail"}`), to: v2.GroupKind().WithVersion("v1"),
		want: string(gadget(`,"labels":{"convert":"fail"}`)),
	}, {
		name: "a failure", cc: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
		object: gadget(`,"labels":{"convert":"fail"}`), to: v2,
		wantErr: `conversion webhook for example.com/v1, Kind=Gadget failed: gadgets cannot be converted today`,
	}, {
		name: "a changed name", cc: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
		object: gadget(`,"labels":{"convert":"rename"}`), to: v2,
		wantErr: `conversion webhook for example.com/v1, Kind=Gadget returned invalid object: must have the same name: g != renamed`,
	}, {
		name: "a version the CRD does not have", cc: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
		object: gadget(""), to: v2.GroupKind().WithVersion("v3"),
		wantErr: `request to convert CR to an invalid group/version: example.com/v3`,
	}, {
		name: "a service not placed", cc: service, conv: Conversion{DefaultCABundle: caPEM},
		object: gadget(""), to: v2,
		wantErr: `conversion webhook for example.com/v1, Kind=Gadget failed: Post "https://gadget-conversion.system.svc:443/convert?timeout=30s": service system/gadget-conversion: no address is given for it`,
	}, {
		name: "a CA that did not sign the certificate", cc: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: mustCA(t)},
		object: gadget(""), to: v2,
		wantErr: `conversion webhook for example.com/v1, Kind=Gadget failed: Post "` + url + `?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewConverter([]*apiextensionsv1.CustomResourceDefinition{convertingGadgets(t, tt.cc)}, tt.conv)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Convert(context.Background(), tt.object, tt.to)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("converted (-want +got):\n%s", diff)
			}
		})
	}
	for _, req := range webhook.calls() {
		if req.DesiredAPIVersion != "example.com/v2" || len(req.Objects) != 1 {
			t.Errorf("the webhook was asked for %s with %d objects, want example.com/v2 with 1", req.DesiredAPIVersion, len(req.Objects))
		}
	}
}

func mustCA(t *testing.T) []byte {
	t.Helper()
	other, err := certs.NewCA("another", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return other.CertPEM()
}

// A webhook registered for v2 of a custom resource whose CRD converts through a webhook is called
// with the v1 object converted, and its patch comes back converted to v1; the stored object goes
// through the storage version too.
func TestWebhookMatchedThroughConversionWebhook(t *testing.T) {
	conv, converter, caPEM := serveGadgetConverter(t)
	url := conv.URL + "/convert"
	crd := convertingGadgets(t, &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM})
	server := webhooktest.Start(t)
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	hook := webhooktest.SetLabel("seen", "v2")
	builtin, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := builtin.WithCRDs(crd)
	if err != nil {
		t.Fatal(err)
	}
	d := newDispatcher(t, newChain(t, Config{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}}), dispatch.Options{
		Resources: mapper,
		Mutating: []*admissionregistrationv1.MutatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "gadgets.example.com", ClientConfig: server.ClientConfig(hook), SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			MatchPolicy: &equivalent, NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v2"}, Resources: []string{"gadgets"}}}},
		}}}},
	})
	req := request(t, schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, `
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g, namespace: default}
spec: {size: 3}
`, "")
	res, err := d.Admit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	seen := server.Requests(hook)
	if len(seen) != 1 {
		t.Fatalf("the webhook got %d requests, want 1", len(seen))
	}
	if got := member(t, seen[0].Object.Raw, "spec"); !cmp.Equal(got, map[string]any{"count": float64(3)}) {
		t.Errorf("the v2 webhook saw spec %v, want the conversion's count 3", got)
	}
	if got := member(t, res.Object, "spec"); !cmp.Equal(got, map[string]any{"size": float64(3)}) {
		t.Errorf("the admitted v1 object has spec %v, want size 3", got)
	}
	if got := member(t, res.Object, "metadata", "labels", "seen"); got != "v2" {
		t.Errorf("the v2 webhook's label came back as %v on the v1 object", got)
	}
	// To v2 for the webhook, back to v1 with its patch, and through storage (v2) and back.
	var versions []string
	for _, r := range converter.calls() {
		versions = append(versions, r.DesiredAPIVersion)
	}
	want := []string{"example.com/v2", "example.com/v1", "example.com/v2", "example.com/v1"}
	if diff := cmp.Diff(want, versions); diff != "" {
		t.Errorf("conversions asked for (-want +got):\n%s", diff)
	}
}

// Bad input to the Converter is an error saying what is wrong, never a panic or a silent pass:
// a CRD that converts with a webhook but names none, an object that is not JSON, one that names
// no kind, and a conversion webhook answering something that is not a ConversionReview.
func TestConverterRefusesBadInput(t *testing.T) {
	v2 := schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Gadget"}
	noClient := convertingGadgets(t, nil)
	if _, err := NewConverter([]*apiextensionsv1.CustomResourceDefinition{noClient}, Conversion{}); err == nil ||
		err.Error() != `CustomResourceDefinition "gadgets.example.com": spec.conversion.webhook.clientConfig is required when strategy is set to Webhook` {
		t.Errorf("a Webhook CRD without a clientConfig: %v", err)
	}

	garbage := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"ConfigMap","apiVersion":"v1"}`)
	}))
	garbage.Config.ErrorLog = log.New(io.Discard, "", 0)
	t.Cleanup(garbage.Close)
	url := garbage.URL
	caPEM := pemOf(t, garbage)
	c, err := NewConverter([]*apiextensionsv1.CustomResourceDefinition{convertingGadgets(t, &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM})}, Conversion{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, object, wantErr string
	}{
		{"not JSON", `{"apiVersion":`, "decoding the Gadget.example.com to convert: unexpected end of JSON input"},
		{"no kind", `{"apiVersion":"example.com/v1","metadata":{"name":"g"}}`, "decoding the Gadget.example.com to convert: Object 'Kind' is missing in"},
		{"an answer that is not a ConversionReview", string(gadget("")), `conversion webhook for example.com/v1, Kind=Gadget failed: no kind "ConfigMap" is registered for version "v1"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Convert(context.Background(), json.RawMessage(tt.object), v2)
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one starting %q", err, tt.wantErr)
			}
		})
	}
}

// pemOf is the PEM of the certificate an httptest TLS server presents, for a caBundle.
func pemOf(t *testing.T, server *httptest.Server) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
}
