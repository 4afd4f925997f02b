package usage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseLoadAverage(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    [3]float64
		wantErr string
	}{
		{in: "0.52 1.07 2.50 3/170 18685\n", want: [3]float64{0.52, 1.07, 2.5}},
		{in: "12.00 8.85 6.23", want: [3]float64{12, 8.85, 6.23}},
		{in: "0.52 1.07", wantErr: "want three numbers"},
		{in: "0.52 x 2.50 1/1 1", wantErr: "field 2"},
	} {
		got, err := parseLoadAverage(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseLoadAverage(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseLoadAverage(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestCPUModel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\ncpu MHz\t: 2300.000\n", "Intel(R) Xeon(R) Processor"},
		{"processor\t: 0\nmodel name\t: first\n\nprocessor\t: 1\nmodel name\t: second\n", "first"},
		{"processor\t: 0\nBogoMIPS\t: 50.00\n", ""}, // arm64 kernels print no model name
	} {
		if got := cpuModel([]byte(tc.in)); got != tc.want {
			t.Errorf("cpuModel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDeltaPer(t *testing.T) {
	d := Sample{CPU: 5 * time.Millisecond, Mallocs: 1500, AllocBytes: 30000, PeakRSS: 9 << 20, GCs: 4}.
		Sub(Sample{CPU: 2 * time.Millisecond, Mallocs: 300, AllocBytes: 6000, PeakRSS: 8 << 20, GCs: 1})
	want := Delta{CPU: 3 * time.Millisecond, Mallocs: 1200, AllocBytes: 24000, PeakRSS: 9 << 20, GCs: 3}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Sub (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(PerOp{CPU: time.Millisecond, Allocs: 400, AllocBytes: 8000}, d.Per(3)); diff != "" {
		t.Errorf("Per(3) (-want +got):\n%s", diff)
	}
	if got := d.Per(0); got != (PerOp{}) {
		t.Errorf("Per(0) = %+v, want zero", got)
	}
}

// sink keeps the allocations below from being optimised away.
var sink [][]byte

func TestSelfCountsWork(t *testing.T) {
	before, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		sink = append(sink, make([]byte, 64+i))
	}
	deadline := time.Now().Add(20 * time.Millisecond)
	for time.Now().Before(deadline) { // burn CPU, charged to this process
	}
	after, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	d := after.Sub(before)
	if d.Mallocs < 1000 || d.AllocBytes < 1000*64 {
		t.Errorf("1000 allocations of at least 64 bytes counted as %d allocations, %d bytes", d.Mallocs, d.AllocBytes)
	}
	if d.CPU <= 0 {
		t.Errorf("busy loop charged %v of CPU", d.CPU)
	}
	if after.PeakRSS <= 0 {
		t.Errorf("peak RSS %d", after.PeakRSS)
	}
	sink = nil
}

func TestHandlerAndFetch(t *testing.T) {
	server := httptest.NewServer(Handler())
	defer server.Close()
	s, err := Fetch(context.Background(), server.Client(), server.URL)
	if err != nil {
		t.Fatal(err)
	}
	if s.CPU <= 0 || s.Mallocs == 0 || s.PeakRSS <= 0 {
		t.Errorf("fetched an empty sample: %+v", s)
	}
	resp, err := server.Client().Post(server.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST answered %d, want 405", resp.StatusCode)
	}
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	if _, err := Fetch(context.Background(), missing.Client(), missing.URL); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("fetching from a server without usage: %v, want an error saying HTTP 404", err)
	}
}
