package conversion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/webhook/internal/convertmeta"
	"github.com/admitkit/admit/webhook/internal/wire"
)

// Hub converts between the versions of one kind through the hub type H.
type Hub[H any] struct {
	kind     string
	versions map[string]version[H] // apiVersion -> converters
	// hubVersion is the apiVersion whose Go type is H, registered with AddHubVersion.
	hubVersion string
}

type version[H any] struct {
	// toHub decodes an object of the version and converts it to the hub, handing the user's
	// function a hub whose metadata is the object's (metadata).
	toHub func(raw []byte, metadata json.RawMessage) (*H, error)
	// fromHub converts the hub to the version, handing the user's function a value whose metadata
	// is the hub's, or the original object's (metadata) when H holds none.
	fromHub func(h *H, metadata json.RawMessage) (any, error)
}

// NewHub returns a converter for kind (e.g. "Widget") with no versions yet.
func NewHub[H any](kind string) *Hub[H] {
	return &Hub[H]{kind: kind, versions: map[string]version[H]{}}
}

// AddVersion registers apiVersion (e.g. "example.com/v1") whose Go type is V, with the functions
// converting V to and from the hub. V must be a struct whose JSON form is the object, with
// apiVersion, kind and metadata fields (embed metav1.TypeMeta and metav1.ObjectMeta); H a struct
// too. A version whose Go type is the hub itself is registered with AddHubVersion.
//
// The functions need not copy metadata: toHub gets a hub whose metadata is already the source
// object's, and fromHub a V whose metadata is already the hub's (the source object's when H has
// no metadata field). They may change labels and annotations, which the converted object keeps
// (e.g. fromHub stashes a field V lacks in an annotation, toHub reads it back and deletes it);
// any other change to metadata is ignored (see Hub.Convert).
func AddVersion[H, V any](hub *Hub[H], apiVersion string, toHub func(*V, *H) error, fromHub func(*H, *V) error) error {
	if err := checkVersion[H, V](hub, apiVersion); err != nil {
		return err
	}
	if toHub == nil || fromHub == nil {
		return fmt.Errorf("conversion for %s %s: both toHub and fromHub are required", hub.kind, apiVersion)
	}
	hubMeta, versionMeta := metadataIndex(reflect.TypeFor[H]()), metadataIndex(reflect.TypeFor[V]())
	hub.versions[apiVersion] = version[H]{
		toHub: func(raw []byte, metadata json.RawMessage) (*H, error) {
			var v V
			if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v); err != nil {
				return nil, fmt.Errorf("decoding as %s: %w", apiVersion, err)
			}
			var h H
			if err := setMetadata(&h, hubMeta, metadata); err != nil {
				return nil, fmt.Errorf("decoding the metadata into the hub type %T: %w", h, err)
			}
			if err := toHub(&v, &h); err != nil {
				return nil, err
			}
			return &h, nil
		},
		fromHub: func(h *H, metadata json.RawMessage) (any, error) {
			if hubMeta != nil {
				var err error
				if metadata, err = getMetadata(h, hubMeta); err != nil {
					return nil, fmt.Errorf("encoding the hub's metadata: %w", err)
				}
			}
			var v V
			if err := setMetadata(&v, versionMeta, metadata); err != nil {
				return nil, fmt.Errorf("decoding the metadata as %s: %w", apiVersion, err)
			}
			if err := fromHub(h, &v); err != nil {
				return nil, err
			}
			return &v, nil
		},
	}
	return nil
}

// AddHubVersion registers apiVersion as served by the hub type itself (the usual layout: the
// newest version is the hub): objects of that version are the hub, with nothing to convert.
func AddHubVersion[H any](hub *Hub[H], apiVersion string) error {
	if hub.hubVersion != "" {
		return fmt.Errorf("conversion for %s: the hub type is version %s already, not %s too", hub.kind, hub.hubVersion, apiVersion)
	}
	identity := func(from, to *H) error { *to = *from; return nil }
	if err := AddVersion[H, H](hub, apiVersion, identity, identity); err != nil {
		return err
	}
	hub.hubVersion = apiVersion
	return nil
}

// Kind is the kind the hub converts, as given to NewHub.
func (h *Hub[H]) Kind() string { return h.kind }

// HubVersion is the apiVersion registered with AddHubVersion, "" until then.
func (h *Hub[H]) HubVersion() string { return h.hubVersion }

// checkVersion refuses what would fail on the first review: a version registered twice, an
// apiVersion without a group (a custom resource always has one), and Go types that are not
// objects (V without apiVersion, kind and metadata; H or V not a struct).
func checkVersion[H, V any](hub *Hub[H], apiVersion string) error {
	var problems []string
	if _, dup := hub.versions[apiVersion]; dup {
		problems = append(problems, fmt.Sprintf("version %s registered twice", apiVersion))
	}
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok || group == "" || !strings.Contains(group, ".") || version == "" || strings.Contains(version, "/") {
		problems = append(problems, fmt.Sprintf("apiVersion %q: want GROUP/VERSION with the CRD's group, e.g. example.com/v1", apiVersion))
	}
	if t := reflect.TypeFor[H](); t.Kind() != reflect.Struct {
		problems = append(problems, fmt.Sprintf("the hub type %s is not a struct (use the type, not a pointer to it)", t))
	}
	v := reflect.TypeFor[V]()
	if v.Kind() != reflect.Struct {
		problems = append(problems, fmt.Sprintf("the type %s of %s is not a struct (use the type, not a pointer to it)", v, apiVersion))
	} else if missing := missingObjectFields(v); len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("the type %s of %s has no %s: embed metav1.TypeMeta and metav1.ObjectMeta", v, apiVersion, strings.Join(missing, ", ")))
	}
	if len(problems) > 0 {
		return fmt.Errorf("conversion for %s: %s", hub.kind, strings.Join(problems, "; "))
	}
	return nil
}

// missingObjectFields lists which of apiVersion, kind and metadata t's JSON form lacks.
func missingObjectFields(t reflect.Type) []string {
	have := jsonFields(t)
	var missing []string
	for _, want := range []string{"apiVersion", "kind", "metadata"} {
		if _, ok := have[want]; !ok {
			missing = append(missing, want)
		}
	}
	return missing
}

// Versions lists the registered apiVersions, sorted.
func (h *Hub[H]) Versions() []string {
	out := make([]string, 0, len(h.versions))
	for v := range h.versions {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// Convert converts one object (JSON) to desiredAPIVersion. An object already in that version is
// returned unchanged.
//
// The converted object's metadata is the original's, except labels and annotations, which are
// those the conversion functions left (see AddVersion): that is what kube-apiserver keeps of a
// conversion webhook's answer, so the result is what the cluster stores and serves. Labels or
// annotations absent from the converted object (Go's ObjectMeta leaves out empty ones) are absent
// from the result. Labels and annotations the functions changed are validated as kube-apiserver
// validates them: invalid ones fail the conversion with its words, as the cluster would.
func (h *Hub[H]) Convert(_ context.Context, object []byte, desiredAPIVersion string) ([]byte, error) {
	var head struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		Metadata   json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(object, &head); err != nil {
		return nil, fmt.Errorf("decoding object: %w", err)
	}
	if head.Kind != h.kind {
		return nil, fmt.Errorf("cannot convert kind %q: this converter handles %q", head.Kind, h.kind)
	}
	if head.APIVersion == desiredAPIVersion {
		return object, nil
	}
	from, ok := h.versions[head.APIVersion]
	if !ok {
		return nil, fmt.Errorf("cannot convert from %s: not one of %s", head.APIVersion, strings.Join(h.Versions(), ", "))
	}
	to, ok := h.versions[desiredAPIVersion]
	if !ok {
		return nil, fmt.Errorf("cannot convert to %s: not one of %s", desiredAPIVersion, strings.Join(h.Versions(), ", "))
	}
	hubObject, err := from.toHub(object, head.Metadata)
	if err != nil {
		return nil, fmt.Errorf("converting %s to the hub: %w", head.APIVersion, err)
	}
	converted, err := to.fromHub(hubObject, head.Metadata)
	if err != nil {
		return nil, fmt.Errorf("converting the hub to %s: %w", desiredAPIVersion, err)
	}
	out, err := json.Marshal(converted)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", desiredAPIVersion, err)
	}
	// Type and metadata but labels and annotations are the originals': the apiserver refuses or
	// undoes any other change, and conversion functions should not have to set them.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(out, &fields); err != nil {
		return nil, fmt.Errorf("encoding %s: %s is not a JSON object: %w", desiredAPIVersion, desiredAPIVersion, err)
	}
	fields["apiVersion"], _ = json.Marshal(desiredAPIVersion)
	fields["kind"], _ = json.Marshal(h.kind)
	metadata, err := convertmeta.Merge(head.Metadata, fields["metadata"])
	if err != nil {
		return nil, fmt.Errorf("converting to %s: %w", desiredAPIVersion, err)
	}
	if metadata == nil {
		delete(fields, "metadata")
	} else {
		fields["metadata"] = metadata
	}
	return json.Marshal(fields)
}

// Converter converts one object, given as JSON, to desiredAPIVersion. *Hub implements it.
type Converter interface {
	Convert(ctx context.Context, object []byte, desiredAPIVersion string) ([]byte, error)
}

// Options configure the HTTP handler.
type Options struct {
	// MaxRequestBytes bounds the body; default 7 MiB (a list of objects fits).
	MaxRequestBytes int64
	// Logger receives conversion failures; nil discards.
	Logger *slog.Logger
}

// NewHTTPHandler serves ConversionReviews with c. Every object of a review is converted; if one
// fails, the review's result is a Failure naming the object, and no object is returned (the
// apiserver takes all or nothing).
func NewHTTPHandler(c Converter, opts Options) http.Handler {
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = 7 << 20
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if refusal := wire.ReadBody(w, r, opts.MaxRequestBytes, &buf, "conversion reviews"); refusal != nil {
			wire.WriteStatus(w, refusal)
			return
		}
		body := buf.Bytes()
		review, err := decodeReview(body)
		if err != nil {
			wire.WriteStatus(w, &wire.Refusal{Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: err.Error()})
			return
		}
		resp := convertAll(r.Context(), c, review.Request)
		if resp.Result.Status == metav1.StatusFailure {
			opts.Logger.LogAttrs(r.Context(), slog.LevelError, "conversion failed",
				slog.String("uid", string(review.Request.UID)), slog.String("desiredAPIVersion", review.Request.DesiredAPIVersion),
				slog.String("error", resp.Result.Message))
		}
		out, err := json.Marshal(apiextensionsv1.ConversionReview{TypeMeta: review.TypeMeta, Response: resp})
		if err != nil {
			wire.WriteStatus(w, &wire.Refusal{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError, Message: fmt.Sprintf("encoding ConversionReview: %v", err)})
			return
		}
		wire.WriteJSON(w, http.StatusOK, out)
	})
}

func decodeReview(body []byte) (*apiextensionsv1.ConversionReview, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errors.New("request body is empty: expected a ConversionReview")
	}
	if !utf8.Valid(body) {
		return nil, errors.New("decoding ConversionReview: the body is not valid UTF-8")
	}
	var review apiextensionsv1.ConversionReview
	// Duplicate keys are refused: decoders disagree on which value wins.
	strict, err := kjson.UnmarshalStrict(body, &review, kjson.DisallowDuplicateFields)
	if err == nil && len(strict) > 0 {
		err = errors.Join(strict...)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding ConversionReview: %w", err)
	}
	if review.APIVersion != "apiextensions.k8s.io/v1" || review.Kind != "ConversionReview" {
		return nil, fmt.Errorf("unsupported review %s, Kind=%s: expected apiextensions.k8s.io/v1, Kind=ConversionReview", review.APIVersion, review.Kind)
	}
	if review.Request == nil {
		return nil, errors.New("ConversionReview has no request")
	}
	if review.Request.DesiredAPIVersion == "" {
		return nil, errors.New("ConversionReview request has no desiredAPIVersion")
	}
	return &review, nil
}

func convertAll(ctx context.Context, c Converter, req *apiextensionsv1.ConversionRequest) *apiextensionsv1.ConversionResponse {
	resp := &apiextensionsv1.ConversionResponse{UID: req.UID}
	converted := make([]runtime.RawExtension, 0, len(req.Objects))
	for i, obj := range req.Objects {
		out, err := c.Convert(ctx, obj.Raw, req.DesiredAPIVersion)
		if err != nil {
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: fmt.Sprintf("objects[%d]: %v", i, err)}
			return resp
		}
		converted = append(converted, runtime.RawExtension{Raw: out})
	}
	resp.ConvertedObjects = converted
	resp.Result = metav1.Status{Status: metav1.StatusSuccess}
	return resp
}
