package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"syscall"
	"time"
)

// Sample is a process's cumulative consumption since it started.
type Sample struct {
	// CPU is user plus system time.
	CPU time.Duration `json:"cpuNanoseconds"`
	// Mallocs and AllocBytes count heap allocations and their bytes (runtime.MemStats).
	Mallocs    uint64 `json:"mallocs"`
	AllocBytes uint64 `json:"allocBytes"`
	// PeakRSS is the largest resident set size the process reached, in bytes.
	PeakRSS int64 `json:"peakRSSBytes"`
	// GCs is the number of completed garbage collections.
	GCs uint32 `json:"gcs"`
}

// Self samples the calling process. Reading the memory statistics stops the world for a moment,
// so sample before and after a measurement, not during it.
func Self() (Sample, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return Sample{}, fmt.Errorf("getrusage: %w", err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Sample{
		CPU:        time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		Mallocs:    ms.Mallocs,
		AllocBytes: ms.TotalAlloc,
		PeakRSS:    maxRSSBytes(ru.Maxrss),
		GCs:        ms.NumGC,
	}, nil
}

// Delta is what a process consumed between two samples. PeakRSS is the later sample's: a peak
// cannot be subtracted.
type Delta struct {
	CPU        time.Duration
	Mallocs    uint64
	AllocBytes uint64
	PeakRSS    int64
	GCs        uint32
}

// Sub returns what was consumed from earlier to s.
func (s Sample) Sub(earlier Sample) Delta {
	return Delta{
		CPU:        s.CPU - earlier.CPU,
		Mallocs:    s.Mallocs - earlier.Mallocs,
		AllocBytes: s.AllocBytes - earlier.AllocBytes,
		PeakRSS:    s.PeakRSS,
		GCs:        s.GCs - earlier.GCs,
	}
}

// PerOp is consumption per operation.
type PerOp struct {
	CPU        time.Duration `json:"cpuNanoseconds"`
	Allocs     float64       `json:"allocs"`
	AllocBytes float64       `json:"allocBytes"`
}

// Per divides d by n operations; n ≤ 0 yields zero.
func (d Delta) Per(n int) PerOp {
	if n <= 0 {
		return PerOp{}
	}
	return PerOp{
		CPU:        d.CPU / time.Duration(n),
		Allocs:     float64(d.Mallocs) / float64(n),
		AllocBytes: float64(d.AllocBytes) / float64(n),
	}
}

// Handler serves the process's Sample as JSON on GET, for a parent process to fetch.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		s, err := Self()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s)
	})
}

// Fetch reads the Sample a Handler serves at url.
func Fetch(ctx context.Context, client *http.Client, url string) (Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Sample{}, fmt.Errorf("usage from %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Sample{}, fmt.Errorf("usage from %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Sample{}, fmt.Errorf("usage from %s: HTTP %d", url, resp.StatusCode)
	}
	var s Sample
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return Sample{}, fmt.Errorf("usage from %s: decoding: %w", url, err)
	}
	return s, nil
}
