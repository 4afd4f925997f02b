package callout

import (
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWithTimeoutRoundsUpToWholeSeconds(t *testing.T) {
	u := &url.URL{Scheme: "https", Host: "x.example", Path: "/p"}
	tests := []struct {
		left time.Duration
		want string
	}{
		{300 * time.Millisecond, "https://x.example/p?timeout=1s"},
		{2500 * time.Millisecond, "https://x.example/p?timeout=3s"},
		{10 * time.Second, "https://x.example/p?timeout=10s"},
		{-time.Second, "https://x.example/p?timeout=1s"}, // already late: still a valid value
	}
	var got, want []string
	for _, tt := range tests {
		got, want = append(got, WithTimeout(u, tt.left).String()), append(want, tt.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timeout queries (-want +got):\n%s", diff)
	}
	if u.RawQuery != "" {
		t.Errorf("WithTimeout changed its argument: %s", u)
	}
}

func TestClientsBuildOncePerKeyAndForgetFailures(t *testing.T) {
	var c Clients[string]
	builds := map[string]int{}
	var mu sync.Mutex
	build := func(key string, fail bool) func() (*http.Client, error) {
		return func() (*http.Client, error) {
			mu.Lock()
			builds[key]++
			mu.Unlock()
			if fail {
				return nil, errors.New("no")
			}
			return &http.Client{}, nil
		}
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Get("a", build("a", false)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if _, err := c.Get("b", build("b", true)); err == nil {
		t.Error("a failed build returned no error")
	}
	if _, err := c.Get("b", build("b", false)); err != nil {
		t.Error(err)
	}
	if diff := cmp.Diff(map[string]int{"a": 1, "b": 2}, builds); diff != "" {
		t.Errorf("builds per key (-want +got):\n%s", diff)
	}
	if c.Len() != 2 {
		t.Errorf("Len %d, want 2", c.Len())
	}
}

// caOf is the PEM bundle that verifies a test server's certificate.
func caOf(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

func TestNewClient(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(r.Proto)) })
	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)

	tests := []struct {
		name      string
		opts      ClientOptions
		path      string
		wantCode  int
		wantProto string
	}{
		{"HTTP/1.1 unless allowed HTTP/2", ClientOptions{CABundle: caOf(srv)}, "/", 200, "HTTP/1.1"},
		{"HTTP/2 when allowed", ClientOptions{CABundle: caOf(srv), HTTP2: true}, "/", 200, "HTTP/2.0"},
		{"a redirect is the answer, not followed", ClientOptions{CABundle: caOf(srv)}, "/redirect", 307, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := NewClient(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer client.CloseIdleConnections()
			resp, err := client.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			if resp.StatusCode != tt.wantCode {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.wantCode)
			}
			if tt.wantProto != "" && resp.Proto != tt.wantProto {
				t.Errorf("protocol %s, want %s", resp.Proto, tt.wantProto)
			}
		})
	}

	t.Run("without a bundle only the system's roots are trusted", func(t *testing.T) {
		client, err := NewClient(ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.Get(srv.URL); err == nil {
			t.Error("a server whose certificate no trusted root signs was trusted")
		}
	})
	t.Run("the certificate must name ServerName", func(t *testing.T) {
		client, err := NewClient(ClientOptions{CABundle: caOf(srv), ServerName: "hooks.example"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.Get(srv.URL); err == nil {
			t.Error("a certificate without the server name was accepted")
		}
	})
	t.Run("a bundle without certificates", func(t *testing.T) {
		if _, err := NewClient(ClientOptions{CABundle: []byte("not PEM")}); !errors.Is(err, ErrNoCertificates) {
			t.Errorf("error %v, want ErrNoCertificates", err)
		}
	})
}
