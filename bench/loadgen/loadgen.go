package loadgen

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Options describe one run.
type Options struct {
	// URL receives every request, a POST of Body with ContentType.
	URL         string
	Body        []byte
	ContentType string
	// TLS configures the client side of the connections; nil for plain HTTP.
	TLS *tls.Config
	// Connections is the number of keep-alive connections, each used by one request at a time.
	Connections int
	// Rate is requests per second for a fixed-rate run; zero sends as fast as the connections
	// allow.
	Rate float64
	// MaxRequests and MaxDuration bound the run; both are required. A fixed-rate run schedules
	// MaxRequests requests unless MaxDuration ends it first.
	MaxRequests int
	MaxDuration time.Duration
	// Check, when set, inspects every answer with status 200; an error counts the request as
	// failed. Answers with another status always fail.
	Check func(body []byte) error
}

// Result is what a run measured.
type Result struct {
	// Completed counts requests answered 200 that passed Check; Failed the others.
	Completed, Failed int
	// FirstError describes the first failure.
	FirstError error
	// Elapsed runs from the first request to the last answer.
	Elapsed time.Duration
	// Latencies of the completed requests, sorted ascending.
	Latencies []time.Duration
}

// Throughput is completed requests per second.
func (r Result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Completed) / r.Elapsed.Seconds()
}

// Percentile returns the latency below which a fraction p (0 < p ≤ 1) of the completed requests
// fall, by the nearest-rank method; zero without requests.
func (r Result) Percentile(p float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	rank := int(math.Ceil(p*float64(len(r.Latencies)))) - 1
	return r.Latencies[min(max(rank, 0), len(r.Latencies)-1)]
}

func (o Options) validate() error {
	switch {
	case o.URL == "":
		return errors.New("loadgen: a URL is required")
	case o.Connections < 1:
		return fmt.Errorf("loadgen: %d connections: at least one is required", o.Connections)
	case o.MaxRequests < 1:
		return fmt.Errorf("loadgen: MaxRequests is %d: a run must be bounded in requests", o.MaxRequests)
	case o.MaxDuration <= 0:
		return fmt.Errorf("loadgen: MaxDuration is %s: a run must be bounded in time", o.MaxDuration)
	case o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0):
		return fmt.Errorf("loadgen: rate %v is not a number of requests per second", o.Rate)
	}
	return nil
}

// Run sends the requests and returns what it measured. The error is for invalid options or a
// cancelled ctx; failed requests are counted in the Result.
func Run(ctx context.Context, opts Options) (Result, error) {
	if err := opts.validate(); err != nil {
		return Result{}, err
	}
	if opts.ContentType == "" {
		opts.ContentType = "application/json"
	}
	ctx, cancel := context.WithTimeout(ctx, opts.MaxDuration)
	defer cancel()

	// A ticket is one request to send; its value is when it was due (zero: as soon as possible).
	tickets := make(chan time.Time, opts.Connections)
	workers := make([]*worker, opts.Connections)
	var wg sync.WaitGroup
	for i := range workers {
		workers[i] = newWorker(opts)
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.run(ctx, tickets)
		}(workers[i])
	}

	start := time.Now()
	if opts.Rate > 0 {
		scheduleAtRate(ctx, tickets, start, opts.Rate, opts.MaxRequests)
	} else {
		scheduleImmediately(ctx, tickets, opts.MaxRequests)
	}
	close(tickets)
	wg.Wait()
	elapsed := time.Since(start)

	var res Result
	for _, w := range workers {
		w.transport.CloseIdleConnections()
		res.Completed += len(w.latencies)
		res.Failed += w.failed
		res.Latencies = append(res.Latencies, w.latencies...)
		if res.FirstError == nil {
			res.FirstError = w.firstError
		}
	}
	slices.Sort(res.Latencies)
	res.Elapsed = elapsed
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return res, fmt.Errorf("loadgen: %w", err)
	}
	return res, nil
}

// scheduleImmediately hands out n tickets as fast as the workers take them.
func scheduleImmediately(ctx context.Context, tickets chan<- time.Time, n int) {
	for range n {
		select {
		case tickets <- time.Time{}:
		case <-ctx.Done():
			return
		}
	}
}

// scheduleAtRate hands out n tickets due at start + i/rate. Tickets that fall due while every
// worker is busy wait in line and their latency includes the wait, as a client's would.
func scheduleAtRate(ctx context.Context, tickets chan<- time.Time, start time.Time, rate float64, n int) {
	interval := time.Duration(float64(time.Second) / rate)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		select {
		case tickets <- due:
		case <-ctx.Done():
			return
		}
	}
}

// worker owns one keep-alive connection.
type worker struct {
	opts       Options
	transport  *http.Transport
	client     *http.Client
	buf        bytes.Buffer
	latencies  []time.Duration
	failed     int
	firstError error
}

func newWorker(opts Options) *worker {
	transport := &http.Transport{
		TLSClientConfig:     opts.TLS,
		MaxConnsPerHost:     1,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
		// An empty map keeps HTTP/2 off: kube-apiserver calls webhooks over HTTP/1.1.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	return &worker{opts: opts, transport: transport, client: &http.Client{Transport: transport}}
}

func (w *worker) run(ctx context.Context, tickets <-chan time.Time) {
	for due := range tickets {
		sent := time.Now()
		if due.IsZero() {
			due = sent
		}
		if err := w.send(ctx); err != nil {
			if ctx.Err() != nil {
				return // the run ended; an interrupted request is not the server's failure
			}
			w.failed++
			if w.firstError == nil {
				w.firstError = err
			}
			continue
		}
		w.latencies = append(w.latencies, time.Since(due))
	}
}

func (w *worker) send(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.opts.URL, bytes.NewReader(w.opts.Body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", w.opts.ContentType)
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	w.buf.Reset()
	_, err = w.buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, truncate(w.buf.Bytes(), 200))
	}
	if w.opts.Check != nil {
		if err := w.opts.Check(w.buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
