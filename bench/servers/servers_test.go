package servers_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/bench/servers"
)

// TestServersGiveEquivalentAnswers is what makes the serving comparison fair: every server answers
// the benchmark review with a patch that produces exactly the Pod bench.Inject makes.
func TestServersGiveEquivalentAnswers(t *testing.T) {
	dir := t.TempDir()
	caPEM, err := servers.WriteTLS(dir)
	if err != nil {
		t.Fatal(err)
	}
	clientTLS, err := servers.ClientTLS(caPEM)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: clientTLS}}
	podJSON, err := bench.PodJSON()
	if err != nil {
		t.Fatal(err)
	}
	review, err := bench.AdmissionReview(bench.ReviewUID, podJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range servers.Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			running, err := servers.Start(context.Background(), kind, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := running.Stop(); err != nil {
					t.Errorf("stopping: %v", err)
				}
			}()
			// Twice on one connection: the second answer comes over a reused connection.
			for range 2 {
				resp, err := client.Post(running.URL+servers.MutatePath, "application/json", bytes.NewReader(review))
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
				}
				if err := bench.CheckResponse(body, bench.ReviewUID, podJSON); err != nil {
					t.Errorf("%v\nanswer: %s", err, body)
				}
			}
		})
	}
}

func TestParseKind(t *testing.T) {
	for _, kind := range servers.Kinds() {
		got, err := servers.ParseKind(string(kind))
		if err != nil || got != kind {
			t.Errorf("ParseKind(%q) = %q, %v", kind, got, err)
		}
	}
	if _, err := servers.ParseKind("nginx"); err == nil {
		t.Error("ParseKind(nginx) succeeded, want an error naming the known servers")
	}
}
