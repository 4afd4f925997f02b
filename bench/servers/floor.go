package servers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/webhook"
)

// FloorAnswer returns the answer the floor server sends to every request: the one admit's
// defaulter gives to the benchmark's AdmissionReview (with bench.ReviewUID), computed once.
func FloorAnswer() ([]byte, error) {
	registry, err := AdmitRegistry(webhook.HTTPOptions{})
	if err != nil {
		return nil, err
	}
	podJSON, err := bench.PodJSON()
	if err != nil {
		return nil, err
	}
	review, err := bench.AdmissionReview(bench.ReviewUID, podJSON)
	if err != nil {
		return nil, err
	}
	req := httptest.NewRequest(http.MethodPost, MutatePath, bytes.NewReader(review))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	registry.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("precomputing the floor's answer: admit answered HTTP %d: %s", rec.Code, rec.Body)
	}
	return rec.Body.Bytes(), nil
}

// startFloor serves FloorAnswer for every request after reading the request body: TLS, HTTP/1.1
// and the body's bytes, and nothing else.
func startFloor(ctx context.Context, certDir string) (*Running, error) {
	answer, err := FloorAnswer()
	if err != nil {
		return nil, err
	}
	cfg, err := serverTLS(certDir)
	if err != nil {
		return nil, err
	}
	length := strconv.Itoa(len(answer))
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", length)
		_, _ = w.Write(answer)
	})
	return serveTLS(ctx, handler, cfg)
}
