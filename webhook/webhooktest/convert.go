package webhooktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/internal/convertmeta"
)

// Convert sends objects to the conversion webhook reg serves for their CRD, in one
// ConversionReview asking for apiVersion as kube-apiserver sends it, and returns the converted
// objects decoded into V, in order. It fails the test when the webhook answers a failure, or an
// answer kube-apiserver would refuse: another number of objects, another apiVersion or kind,
// metadata changed beyond labels and annotations, changed labels or annotations it finds
// invalid. Decoding is strict: a field V lacks fails it.
//
// The objects are typed (their apiVersion and kind set, or their type registered in the
// Scheme of one of reg's webhooks) or unstructured, all of one kind. Their CRD is the one
// whose group is apiVersion's and whose Hub converts their kind.
func Convert[V any](t T, reg *webhook.Registry, apiVersion string, objects ...runtime.Object) []V {
	t.Helper()
	resp := convert(t, reg, apiVersion, objects)
	if resp.Result.Status != metav1.StatusSuccess {
		t.Fatalf("webhooktest: converting to %s failed: %s", apiVersion, resp.Result.Message)
	}
	out := make([]V, len(resp.ConvertedObjects))
	for i, obj := range resp.ConvertedObjects {
		decoder := json.NewDecoder(bytes.NewReader(obj.Raw))
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(&out[i]); err != nil {
			t.Fatalf("webhooktest: decoding converted object %d into %T: %v\n%s", i, out[i], err, obj.Raw)
		}
	}
	return out
}

// ConversionFailure sends objects as Convert does and returns the message of the failure the
// webhook answers, as kube-apiserver reports it; a conversion that succeeds fails the test.
func ConversionFailure(t T, reg *webhook.Registry, apiVersion string, objects ...runtime.Object) string {
	t.Helper()
	resp := convert(t, reg, apiVersion, objects)
	if resp.Result.Status == metav1.StatusSuccess {
		t.Fatalf("webhooktest: converting to %s succeeded, want a failure", apiVersion)
	}
	return resp.Result.Message
}

// convert runs one ConversionReview through reg and checks the answer as kube-apiserver does.
func convert(t T, reg *webhook.Registry, apiVersion string, objects []runtime.Object) *apiextensionsv1.ConversionResponse {
	t.Helper()
	if len(objects) == 0 {
		t.Fatalf("webhooktest: Convert needs objects")
	}
	desired, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		t.Fatalf("webhooktest: converting to %q: %v", apiVersion, err)
	}
	schemes := registrySchemes(reg)
	raws := make([]runtime.RawExtension, len(objects))
	var kind string
	for i, obj := range objects {
		gvk := kindOf(t, obj, schemes...)
		if kind != "" && gvk.Kind != kind {
			t.Fatalf("webhooktest: objects of kinds %s and %s in one conversion: the apiserver sends one CRD's objects", kind, gvk.Kind)
		}
		kind = gvk.Kind
		raws[i] = runtime.RawExtension{Raw: encode(t, obj, gvk)}
	}
	path := conversionPath(t, reg, desired.Group, kind)
	resp, err := conversionReview(context.Background(), reg, path, apiVersion, kind, raws)
	if err != nil {
		t.Fatalf("webhooktest: %v", err)
	}
	return resp
}

// conversionReview sends raws, objects of kind, to the conversion webhook reg serves at path in
// one ConversionReview asking for apiVersion, and checks a successful answer as kube-apiserver
// does. An answer kube-apiserver could not read, or would refuse, is an error.
func conversionReview(ctx context.Context, reg *webhook.Registry, path, apiVersion, kind string, raws []runtime.RawExtension) (*apiextensionsv1.ConversionResponse, error) {
	review := apiextensionsv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request:  &apiextensionsv1.ConversionRequest{UID: "webhooktest-uid", DesiredAPIVersion: apiVersion, Objects: raws},
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, fmt.Errorf("encoding the ConversionReview: %w", err)
	}
	httpReq := httptest.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
	httpReq.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	reg.ServeHTTP(rec, httpReq)
	answer, _ := io.ReadAll(rec.Result().Body)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("the conversion webhook at %s answered %d: %s", path, rec.Code, answer)
	}
	var got apiextensionsv1.ConversionReview
	if err := json.Unmarshal(answer, &got); err != nil || got.Response == nil {
		return nil, fmt.Errorf("the answer is not a ConversionReview with a response (%v): %s", err, answer)
	}
	resp := got.Response
	if resp.UID != review.Request.UID {
		return nil, fmt.Errorf("the answer's uid %q is not the request's %q", resp.UID, review.Request.UID)
	}
	if resp.Result.Status == metav1.StatusSuccess {
		if err := checkConverted(apiVersion, kind, raws, resp.ConvertedObjects); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// checkConverted checks what kube-apiserver checks of converted objects: one per object, in
// the desired apiVersion, of the same kind, with metadata changed in labels and annotations at
// most, and those valid. The apiserver silently restores metadata other than name, namespace and
// uid; a webhook changing it is failed all the same, as its change would be lost.
func checkConverted(apiVersion, kind string, in, out []runtime.RawExtension) error {
	if len(out) != len(in) {
		return fmt.Errorf("the webhook returned %d objects for %d", len(out), len(in))
	}
	for i := range out {
		var before, after struct {
			APIVersion string         `json:"apiVersion"`
			Kind       string         `json:"kind"`
			Metadata   map[string]any `json:"metadata"`
		}
		if err := json.Unmarshal(in[i].Raw, &before); err != nil {
			return fmt.Errorf("object %d: %w", i, err)
		}
		if err := json.Unmarshal(out[i].Raw, &after); err != nil {
			return fmt.Errorf("converted object %d is not an object: %w\n%s", i, err, out[i].Raw)
		}
		if after.APIVersion != apiVersion || after.Kind != kind {
			return fmt.Errorf("converted object %d is %s %s, want %s %s", i, after.APIVersion, after.Kind, apiVersion, kind)
		}
		for _, m := range []map[string]any{before.Metadata, after.Metadata} {
			delete(m, "labels")
			delete(m, "annotations")
		}
		if !reflect.DeepEqual(before.Metadata, after.Metadata) {
			return fmt.Errorf("converted object %d changed its metadata beyond labels and annotations, which kube-apiserver refuses:\nbefore %v\nafter  %v", i, before.Metadata, after.Metadata)
		}
		if _, err := convertmeta.Merge(metadataOf(in[i].Raw), metadataOf(out[i].Raw)); err != nil {
			return fmt.Errorf("converted object %d: %w", i, err)
		}
	}
	return nil
}

// metadataOf is the metadata of a JSON object, nil when it has none or is not an object (which
// checkConverted reports before asking).
func metadataOf(object []byte) json.RawMessage {
	var o struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	_ = json.Unmarshal(object, &o)
	return o.Metadata
}

// conversionPath finds the conversion webhook of the CRD in group whose kind is kind: the one
// whose Hub converts kind, else the only one of the group.
func conversionPath(t T, reg *webhook.Registry, group, kind string) string {
	t.Helper()
	var inGroup []webhook.Conversion
	for _, c := range reg.Conversions() {
		if _, g, _ := strings.Cut(c.CRD, "."); g != group {
			continue
		}
		if hub, ok := c.Converter.(interface{ Kind() string }); ok && hub.Kind() == kind {
			return c.Path
		}
		inGroup = append(inGroup, c)
	}
	if len(inGroup) == 1 {
		return inGroup[0].Path
	}
	var crds []string
	for _, c := range reg.Conversions() {
		crds = append(crds, c.CRD)
	}
	t.Fatalf("webhooktest: no conversion webhook of the registry converts %s objects of group %s (it has %s)", kind, group, strings.Join(crds, ", "))
	return ""
}

// registrySchemes are the Schemes of reg's webhooks, which know its custom types.
func registrySchemes(reg *webhook.Registry) []*runtime.Scheme {
	var out []*runtime.Scheme
	for _, w := range reg.Webhooks() {
		if w.Scheme != nil && !slices.Contains(out, w.Scheme) {
			out = append(out, w.Scheme)
		}
	}
	return out
}
