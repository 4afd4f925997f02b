package loadgen_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/admitkit/admit/bench/loadgen"
)

// echoServer answers every POST with its body over TLS and counts the connections opened.
type echoServer struct {
	*httptest.Server
	mu          sync.Mutex
	connections int
	status      int
}

func newEchoServer(t *testing.T, status int) *echoServer {
	t.Helper()
	s := &echoServer{status: status}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(s.status)
		_, _ = w.Write(body)
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.mu.Lock()
			s.connections++
			s.mu.Unlock()
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *echoServer) options() loadgen.Options {
	return loadgen.Options{
		URL: s.URL, Body: []byte(`{"ok":true}`), TLS: s.Client().Transport.(*http.Transport).TLSClientConfig,
		Connections: 3, MaxRequests: 50, MaxDuration: 10 * time.Second,
	}
}

func TestMaximumThroughputSendsEveryRequestOverFixedConnections(t *testing.T) {
	s := newEchoServer(t, http.StatusOK)
	opts := s.options()
	var checked sync.Map
	opts.Check = func(body []byte) error {
		checked.Store(string(body), true)
		return nil
	}
	res, err := loadgen.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 50 || res.Failed != 0 || len(res.Latencies) != 50 {
		t.Errorf("completed %d, failed %d, %d latencies; want 50, 0, 50", res.Completed, res.Failed, len(res.Latencies))
	}
	if _, ok := checked.Load(`{"ok":true}`); !ok {
		t.Error("Check never saw the echoed body")
	}
	if s.connections < 1 || s.connections > 3 {
		t.Errorf("%d connections opened, want at most 3 (keep-alive)", s.connections)
	}
	for i := 1; i < len(res.Latencies); i++ {
		if res.Latencies[i] < res.Latencies[i-1] {
			t.Fatal("latencies are not sorted")
		}
	}
	if res.Throughput() <= 0 {
		t.Errorf("throughput %v", res.Throughput())
	}
}

func TestFixedRateSchedulesTheRequestedCount(t *testing.T) {
	s := newEchoServer(t, http.StatusOK)
	opts := s.options()
	opts.Rate, opts.MaxRequests = 200, 20 // 100 ms of schedule
	res, err := loadgen.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 20 {
		t.Errorf("completed %d, want 20", res.Completed)
	}
	// The schedule alone spans 19 intervals of 5 ms.
	if res.Elapsed < 95*time.Millisecond {
		t.Errorf("20 requests at 200/s took %v, less than their schedule", res.Elapsed)
	}
}

func TestFailuresAreCounted(t *testing.T) {
	t.Run("status", func(t *testing.T) {
		s := newEchoServer(t, http.StatusInternalServerError)
		res, err := loadgen.Run(context.Background(), s.options())
		if err != nil {
			t.Fatal(err)
		}
		if res.Completed != 0 || res.Failed != 50 || res.FirstError == nil || !strings.Contains(res.FirstError.Error(), "HTTP 500") {
			t.Errorf("completed %d, failed %d, first error %v; want 0, 50, HTTP 500", res.Completed, res.Failed, res.FirstError)
		}
	})
	t.Run("check", func(t *testing.T) {
		s := newEchoServer(t, http.StatusOK)
		opts := s.options()
		opts.Check = func([]byte) error { return errors.New("wrong answer") }
		res, err := loadgen.Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != 50 || res.FirstError == nil || res.FirstError.Error() != "wrong answer" {
			t.Errorf("failed %d, first error %v; want 50 and the check's error", res.Failed, res.FirstError)
		}
	})
}

func TestRunIsBoundedInTime(t *testing.T) {
	s := newEchoServer(t, http.StatusOK)
	opts := s.options()
	opts.Rate, opts.MaxRequests, opts.MaxDuration = 10, 1000, 150*time.Millisecond // 100 s of schedule
	start := time.Now()
	res, err := loadgen.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("a run bounded to 150ms lasted %v", elapsed)
	}
	if res.Completed >= 1000 {
		t.Errorf("completed %d requests: the time bound was ignored", res.Completed)
	}
}

func TestOptionsAreValidated(t *testing.T) {
	valid := loadgen.Options{URL: "https://127.0.0.1:1", Connections: 1, MaxRequests: 1, MaxDuration: time.Second}
	for _, tc := range []struct {
		name    string
		edit    func(*loadgen.Options)
		wantErr string
	}{
		{"no url", func(o *loadgen.Options) { o.URL = "" }, "URL is required"},
		{"no connection", func(o *loadgen.Options) { o.Connections = 0 }, "at least one"},
		{"unbounded count", func(o *loadgen.Options) { o.MaxRequests = 0 }, "bounded in requests"},
		{"unbounded time", func(o *loadgen.Options) { o.MaxDuration = 0 }, "bounded in time"},
		{"negative rate", func(o *loadgen.Options) { o.Rate = -1 }, "rate -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := valid
			tc.edit(&opts)
			if _, err := loadgen.Run(context.Background(), opts); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var hundred []time.Duration
	for i := 1; i <= 100; i++ {
		hundred = append(hundred, ms(i))
	}
	for _, tc := range []struct {
		name      string
		latencies []time.Duration
		p         float64
		want      time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", []time.Duration{ms(7)}, 0.99, ms(7)},
		{"p50 of 100", hundred, 0.50, ms(50)},
		{"p99 of 100", hundred, 0.99, ms(99)},
		{"p100 of 100", hundred, 1, ms(100)},
		{"p50 of 4", []time.Duration{ms(1), ms(2), ms(3), ms(4)}, 0.5, ms(2)},
	} {
		if got := (loadgen.Result{Latencies: tc.latencies}).Percentile(tc.p); got != tc.want {
			t.Errorf("%s: Percentile(%v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}
