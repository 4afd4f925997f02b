package loadgen

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// counts is how many requests ended in each outcome.
type counts struct{ OK, Rejected, NotConnected, Broken int }

func countsOf(r *Report) counts {
	return counts{r.Count(OK), r.Count(Rejected), r.Count(NotConnected), r.Count(Broken)}
}

func TestOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		closed  bool // the server is closed before the run
		want    counts
	}{
		{name: "answered", handler: func(w http.ResponseWriter, _ *http.Request) {}, want: counts{OK: 10}},
		{name: "wrong status", handler: func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no", http.StatusInternalServerError)
		}, want: counts{Rejected: 10}},
		{name: "connection dropped after the request", handler: func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}, want: counts{Broken: 10}},
		{name: "listener closed", handler: func(w http.ResponseWriter, _ *http.Request) {}, closed: true, want: counts{NotConnected: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := httptest.NewTLSServer(tt.handler)
			defer server.Close()
			if tt.closed {
				server.Close()
			}
			report, err := Run(context.Background(), Options{
				NewRequest:  post(server.URL),
				TLS:         server.Client().Transport.(*http.Transport).TLSClientConfig,
				Rate:        100,
				Duration:    100 * time.Millisecond,
				Connections: 2,
				// A dropped connection is retried by net/http once if nothing was written; keep the
				// retry from finding a fresh connection that is also dropped before timing out.
				RequestTimeout: 5 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, countsOf(report)); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s\nerrors: %q", diff, report.Errors(3))
			}
			for i, rec := range report.Records {
				if rec.Seq != i {
					t.Fatalf("record %d has seq %d: records must be in order", i, rec.Seq)
				}
				if (rec.Err == nil) != (rec.Outcome == OK) {
					t.Errorf("record %d: outcome %s with error %v", i, rec.Outcome, rec.Err)
				}
				if written := !rec.Written.IsZero(); written != (rec.Outcome != NotConnected) {
					t.Errorf("record %d: outcome %s, written at %v", i, rec.Outcome, rec.Written)
				}
			}
		})
	}
}

func TestRequestsPerConnection(t *testing.T) {
	tests := []struct {
		perConnection int
		wantConns     int64
	}{
		{perConnection: 0, wantConns: 1},
		{perConnection: 1, wantConns: 12},
		{perConnection: 4, wantConns: 3},
	}
	for _, tt := range tests {
		var conns atomic.Int64
		server := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		server.Config.ConnState = func(_ net.Conn, state http.ConnState) {
			if state == http.StateNew {
				conns.Add(1)
			}
		}
		server.StartTLS()
		report, err := Run(context.Background(), Options{
			NewRequest: post(server.URL), TLS: server.Client().Transport.(*http.Transport).TLSClientConfig,
			Rate: 120, Duration: 100 * time.Millisecond, Connections: 1, RequestsPerConnection: tt.perConnection,
		})
		server.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := report.Count(OK); got != 12 {
			t.Errorf("RequestsPerConnection %d: %d requests OK, want 12: %q", tt.perConnection, got, report.Errors(3))
		}
		if got := conns.Load(); got != tt.wantConns {
			t.Errorf("RequestsPerConnection %d: %d connections, want %d", tt.perConnection, got, tt.wantConns)
		}
	}
}

func TestCheckSeesEveryAnswer(t *testing.T) {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.URL.Query().Get("seq")))
	}))
	defer server.Close()
	var seen atomic.Int64
	report, err := Run(context.Background(), Options{
		NewRequest: func(seq int) (*http.Request, error) {
			return http.NewRequest(http.MethodPost, server.URL+"?seq="+string(rune('a'+seq)), nil)
		},
		Check: func(seq int, _ *http.Response, body []byte) error {
			seen.Add(1)
			if string(body) != string(rune('a'+seq)) {
				return errors.New("answer to another request")
			}
			return nil
		},
		TLS: server.Client().Transport.(*http.Transport).TLSClientConfig, Rate: 100, Duration: 200 * time.Millisecond, Connections: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if report.Count(OK) != 20 || seen.Load() != 20 {
		t.Errorf("%d OK, %d checked, want 20 and 20: %q", report.Count(OK), seen.Load(), report.Errors(3))
	}
}

func TestCancelStopsScheduling(t *testing.T) {
	server := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer server.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	report, err := Run(ctx, Options{
		NewRequest: post(server.URL), TLS: server.Client().Transport.(*http.Transport).TLSClientConfig,
		Rate: 100, Duration: time.Hour, Connections: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	// An hour at 100/s is 360,000 requests; a cancelled run returns and sends a handful (on a
	// loaded machine possibly none before the 200 ms are up, so no lower bound).
	if n := len(report.Records); n > 1000 {
		t.Errorf("%d requests sent before the context ended, want a few", n)
	}
}

func TestInvalidOptions(t *testing.T) {
	_, err := Run(context.Background(), Options{Rate: 0, Duration: -time.Second})
	want := "loadgen: NewRequest is required; rate 0 must be at least 1 request per second; duration -1s must be positive; 0 connections: at least one is required"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestReportSummary(t *testing.T) {
	report := &Report{Elapsed: 2 * time.Second, Records: []Record{
		{Seq: 0, Outcome: OK, Latency: time.Millisecond},
		{Seq: 1, Outcome: OK, Latency: 3 * time.Millisecond},
		{Seq: 2, Outcome: Broken, Err: errors.New("EOF")},
		{Seq: 3, Outcome: Broken, Err: errors.New("EOF")},
		{Seq: 4, Outcome: Rejected, Err: errors.New("HTTP 500, want 200")},
	}}
	want := "5 requests in 2s (2/s): 2 ok, 1 rejected, 0 not connected, 2 broken; latency p50 1ms, p99 3ms, max 3ms"
	if got := report.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{"2× broken: EOF", "1× rejected: HTTP 500, want 200"}, report.Errors(5)); diff != "" {
		t.Errorf("Errors (-want +got):\n%s", diff)
	}
}

func post(url string) func(int) (*http.Request, error) {
	return func(int) (*http.Request, error) {
		return http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	}
}
