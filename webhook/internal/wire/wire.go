package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Refusal is why a request was refused before it reached a handler.
type Refusal struct {
	Code    int
	Reason  metav1.StatusReason
	Message string
}

// ReadBody checks the method, the media type (application/json with any parameters) and the
// declared length before reading anything, then reads the body into buf within limit. what names
// the expected document in messages ("admission reviews"). A refusal is returned for the caller
// to answer with WriteStatus.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64, buf *bytes.Buffer, what string) *Refusal {
	if r.Method != http.MethodPost {
		return &Refusal{http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			fmt.Sprintf("method %s is not allowed: %s are sent with POST", r.Method, what)}
	}
	if refusal := checkMediaType(r.Header.Get("Content-Type"), what); refusal != nil {
		return refusal
	}
	if r.ContentLength > limit {
		return &Refusal{http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
			fmt.Sprintf("request body of %d bytes exceeds the limit of %d bytes", r.ContentLength, limit)}
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit)); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return &Refusal{http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
				fmt.Sprintf("request body exceeds the limit of %d bytes", limit)}
		}
		return &Refusal{http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf("reading request body: %v", err)}
	}
	return nil
}

func checkMediaType(contentType, what string) *Refusal {
	if contentType == "" {
		return &Refusal{http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
			fmt.Sprintf("Content-Type header is missing: %s must be sent as application/json", what)}
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return &Refusal{http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
			fmt.Sprintf("Content-Type %q is not a valid media type: %v", contentType, err)}
	}
	if mediaType != "application/json" {
		return &Refusal{http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
			fmt.Sprintf("Content-Type %q is not supported: %s must be sent as application/json", mediaType, what)}
	}
	return nil
}

// StatusBody encodes status as a v1 Status with status Failure.
func StatusBody(status metav1.Status) []byte {
	status.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
	status.Status = metav1.StatusFailure
	body, err := json.Marshal(status)
	if err != nil {
		// A Status of strings and integers always encodes; keep a valid body regardless.
		return []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`)
	}
	return body
}

// WriteStatus answers with a Status carrying the refusal.
func WriteStatus(w http.ResponseWriter, refusal *Refusal) {
	WriteJSON(w, refusal.Code, StatusBody(metav1.Status{Code: int32(refusal.Code), Reason: refusal.Reason, Message: refusal.Message}))
}

// WriteJSON writes body with Content-Type application/json and its length.
func WriteJSON(w http.ResponseWriter, code int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = io.Copy(w, bytes.NewReader(body))
}
