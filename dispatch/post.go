package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/internal/jsonscan"
	"github.com/admitkit/admit/internal/typedjson"
)

// maxRetries is client-go's default number of retries on 429/5xx with Retry-After.
const maxRetries = 10

// maxResponseBytes bounds how much of a webhook's answer is read: a webhook cannot make the
// dispatcher buffer an unbounded body.
const maxResponseBytes = 16 << 20

// unstructuredErrorBytes caps the body quoted in an error, as client-go does.
const unstructuredErrorBytes = 4 << 10

// post sends the review, retrying like client-go when the webhook answers 429 or 5xx with an
// integer Retry-After, and turns the answer into a decoded review or the error client-go gives.
func post(ctx context.Context, client *http.Client, target string, body []byte, version string, answers *typedjson.Decoder) (*admissionv1.AdmissionReview, int, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
		if err != nil {
			return nil, 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, */*")
		req.Header.Set("User-Agent", "kube-apiserver-admission")
		resp, err := client.Do(req)
		if err != nil {
			return nil, 0, err
		}
		data, readErr := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
		resp.Body.Close()
		if readErr != nil {
			return nil, resp.StatusCode, fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", readErr)
		}
		if len(data) > maxResponseBytes {
			return nil, resp.StatusCode, fmt.Errorf("response body exceeds %d bytes", maxResponseBytes)
		}
		if wait, ok := retryAfter(resp); ok && attempt < maxRetries {
			timer := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				return nil, resp.StatusCode, ctx.Err()
			case <-timer.C:
			}
			continue
		}
		review, err := decodeResponse(resp, data, version, answers)
		return review, resp.StatusCode, err
	}
}

// retryAfter reports whether client-go would retry: 429 or 5xx with an integer Retry-After.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < http.StatusInternalServerError {
		return 0, false
	}
	seconds, ok := retryAfterSeconds(resp)
	if !ok {
		return 0, false
	}
	return time.Duration(seconds) * time.Second, true
}

func retryAfterSeconds(resp *http.Response) (int, bool) {
	if h := resp.Header.Get("Retry-After"); h != "" {
		if i, err := strconv.Atoi(h); err == nil {
			return i, true
		}
	}
	return 0, false
}

// decodeResponse reproduces client-go's handling of an answer: non-2xx answers become API
// errors (the webhook's Status when it sent one), 2xx bodies are decoded as AdmissionReviews.
func decodeResponse(resp *http.Response, body []byte, version string, answers *typedjson.Decoder) (*admissionv1.AdmissionReview, error) {
	headerType := resp.Header.Get("Content-Type")
	contentType := headerType
	if contentType == "" {
		contentType = "application/json"
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	isText := headerType == "" || strings.HasPrefix(mediaType, "text/")
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		if status, ok := decodeStatus(body); ok {
			return nil, &apierrors.StatusError{ErrStatus: *status}
		}
		message := "unknown"
		if isText {
			quoted := body
			if len(quoted) > unstructuredErrorBytes {
				quoted = quoted[:unstructuredErrorBytes]
			}
			message = strings.TrimSpace(string(quoted))
		}
		retry, _ := retryAfterSeconds(resp)
		return nil, apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", message, retry, true)
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("0-length response with status code: %d and content type: %s", resp.StatusCode, contentType)
	}
	body, err = asJSON(body)
	if err != nil {
		return nil, err
	}
	// The apiserver reads the declared kind first (encoding/json: keys match case-insensitively),
	// then decodes the review (case-sensitively). When the body's members are the review's own,
	// each once (the one-pass decoder refuses repeated ones), the kind the decode reads is the one
	// the first read would find.
	var review admissionv1.AdmissionReview
	// An anonymous struct, as the apiserver's: a decoding error names the type it decoded into.
	var head struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}
	decoded := answers != nil && onlyReviewMembers(body) && answers.Decode(body, &review)
	if decoded {
		head.APIVersion, head.Kind = review.APIVersion, review.Kind
	} else {
		review = admissionv1.AdmissionReview{}
		if err := json.Unmarshal(body, &head); err != nil {
			return nil, fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
		}
	}
	want := "admission.k8s.io/" + version
	if head.APIVersion != "" && head.Kind != "" && (head.APIVersion != want || head.Kind != "AdmissionReview") {
		// The apiserver decodes the declared type and cannot convert it to the one it asked for:
		// its converter names both by their Go types.
		if other, ok := strings.CutPrefix(head.APIVersion, "admission.k8s.io/"); ok && head.Kind == "AdmissionReview" && (other == "v1" || other == "v1beta1") {
			return nil, fmt.Errorf("converting (%s.AdmissionReview) to (%s.AdmissionReview): unknown conversion", other, version)
		}
		return nil, fmt.Errorf("converting (%s, Kind=%s) to (%s, Kind=AdmissionReview): unknown conversion", head.APIVersion, head.Kind, want)
	}
	if decoded {
		return &review, nil
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &review); err != nil {
		return nil, fmt.Errorf("decoding the AdmissionReview: %w", err)
	}
	return &review, nil
}

// onlyReviewMembers reports whether body is an object whose members are all an AdmissionReview's,
// spelled as it spells them.
func onlyReviewMembers(body []byte) bool {
	s := jsonscan.Scanner{Data: body}
	return s.Members(func(key []byte) bool {
		switch string(key) {
		case "apiVersion", "kind", "request", "response":
			return s.SkipValue()
		}
		return false
	})
}

// decodeStatus reads a metav1.Status with status Failure, as client-go looks for in error bodies.
func decodeStatus(body []byte) (*metav1.Status, bool) {
	body, err := asJSON(body)
	if err != nil {
		return nil, false
	}
	var status metav1.Status
	if err := json.Unmarshal(body, &status); err != nil {
		return nil, false
	}
	if status.Kind != "Status" || (status.APIVersion != "v1" && status.APIVersion != "") || status.Status != metav1.StatusFailure {
		return nil, false
	}
	return &status, true
}

// asJSON reads a body as the apiserver's universal deserializer does, whatever its Content-Type:
// JSON when it starts with '{', YAML otherwise.
func asJSON(body []byte) ([]byte, error) {
	if trimmed := bytes.TrimLeftFunc(body, unicode.IsSpace); bytes.HasPrefix(trimmed, []byte("{")) {
		return body, nil
	}
	return yaml.YAMLToJSON(body)
}
