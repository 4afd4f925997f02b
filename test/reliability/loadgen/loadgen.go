package loadgen

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultRequestTimeout bounds one request when Options.RequestTimeout is zero.
const DefaultRequestTimeout = 10 * time.Second

// maxBodyBytes bounds how much of an answer is read and handed to Check.
const maxBodyBytes = 1 << 20

// Options describe one run.
type Options struct {
	// NewRequest builds request number seq (from 0). It is called on the goroutine of the
	// connection that sends it, so it must be safe for concurrent use.
	NewRequest func(seq int) (*http.Request, error)
	// Check inspects an answer and its body (read up to 1 MiB); an error makes the request
	// Rejected. nil accepts status 200 only.
	Check func(seq int, resp *http.Response, body []byte) error
	// TLS configures the client side of the connections; nil for plain HTTP.
	TLS *tls.Config
	// Rate is the number of requests per second, Duration how long they are scheduled for.
	Rate     int
	Duration time.Duration
	// Connections is the number of connections, each carrying one request at a time.
	Connections int
	// RequestsPerConnection closes a connection after that many requests, so that new TLS
	// handshakes happen throughout the run (a certificate rotation must not break them). Zero
	// keeps each connection for the whole run; one opens a connection per request.
	RequestsPerConnection int
	// RequestTimeout bounds one request, from sending it to the end of its answer;
	// DefaultRequestTimeout when zero.
	RequestTimeout time.Duration
}

// Outcome is how one request ended.
type Outcome int

const (
	OK Outcome = iota
	Rejected
	NotConnected
	Broken
)

func (o Outcome) String() string {
	switch o {
	case OK:
		return "ok"
	case Rejected:
		return "rejected"
	case NotConnected:
		return "not connected"
	case Broken:
		return "broken"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Record is what happened to one request.
type Record struct {
	Seq int
	// Due is when the request was scheduled; Sent when a connection started sending it, which
	// is later when every connection was busy; Connected when it had a connection (TLS handshake
	// done), Written when it was completely written, each zero if it never happened.
	Due, Sent, Connected, Written time.Time
	// Latency runs from Due to the end of the answer, or to the error.
	Latency time.Duration
	Outcome Outcome
	// Err says why the request was not OK.
	Err error
}

// Report is what a run recorded.
type Report struct {
	// Records has one entry per request sent, in Seq order. A run cut short by its context
	// leaves out the requests it never sent.
	Records []Record
	// Elapsed runs from the first scheduled request to the last answer.
	Elapsed time.Duration
}

// Count returns how many requests ended with outcome o.
func (r *Report) Count(o Outcome) int {
	n := 0
	for _, rec := range r.Records {
		if rec.Outcome == o {
			n++
		}
	}
	return n
}

// Latency returns the latency below which a fraction q (0 < q ≤ 1) of the OK requests fall, by
// the nearest-rank method; zero when no request was OK.
func (r *Report) Latency(q float64) time.Duration {
	var ok []time.Duration
	for _, rec := range r.Records {
		if rec.Outcome == OK {
			ok = append(ok, rec.Latency)
		}
	}
	if len(ok) == 0 {
		return 0
	}
	slices.Sort(ok)
	rank := int(math.Ceil(q*float64(len(ok)))) - 1
	return ok[min(max(rank, 0), len(ok)-1)]
}

// Errors lists the distinct errors of the requests that were not OK, most frequent first, as
// "<count>× <outcome>: <error>", at most limit of them.
func (r *Report) Errors(limit int) []string {
	type key struct {
		outcome Outcome
		err     string
	}
	counts := map[key]int{}
	for _, rec := range r.Records {
		if rec.Outcome != OK {
			counts[key{rec.Outcome, fmt.Sprint(rec.Err)}]++
		}
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a.err, b.err)
	})
	var out []string
	for _, k := range keys[:min(limit, len(keys))] {
		out = append(out, fmt.Sprintf("%d× %s: %s", counts[k], k.outcome, k.err))
	}
	return out
}

// String summarises the run on one line.
func (r *Report) String() string {
	rate := 0.0
	if r.Elapsed > 0 {
		rate = float64(len(r.Records)) / r.Elapsed.Seconds()
	}
	return fmt.Sprintf("%d requests in %s (%.0f/s): %d ok, %d rejected, %d not connected, %d broken; latency p50 %s, p99 %s, max %s",
		len(r.Records), r.Elapsed.Round(time.Millisecond), rate,
		r.Count(OK), r.Count(Rejected), r.Count(NotConnected), r.Count(Broken),
		r.Latency(0.5).Round(time.Microsecond), r.Latency(0.99).Round(time.Microsecond), r.Latency(1).Round(time.Microsecond))
}

func (o Options) validate() error {
	var problems []string
	if o.NewRequest == nil {
		problems = append(problems, "NewRequest is required")
	}
	if o.Rate < 1 {
		problems = append(problems, fmt.Sprintf("rate %d must be at least 1 request per second", o.Rate))
	}
	if o.Duration <= 0 {
		problems = append(problems, fmt.Sprintf("duration %s must be positive", o.Duration))
	}
	if o.Connections < 1 {
		problems = append(problems, fmt.Sprintf("%d connections: at least one is required", o.Connections))
	}
	if o.RequestsPerConnection < 0 || o.RequestTimeout < 0 {
		problems = append(problems, "RequestsPerConnection and RequestTimeout may not be negative")
	}
	if len(problems) > 0 {
		return fmt.Errorf("loadgen: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Run sends Rate × Duration requests and returns what happened to each. The error is for invalid
// options only; a cancelled ctx stops scheduling and the Report holds what was sent.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.Check == nil {
		opts.Check = func(_ int, resp *http.Response, _ []byte) error {
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("HTTP %d, want 200", resp.StatusCode)
			}
			return nil
		}
	}
	total := int(math.Round(float64(opts.Rate) * opts.Duration.Seconds()))
	interval := time.Second / time.Duration(opts.Rate)
	records := make([]Record, total)
	sent := make([]bool, total)
	// The queue holds every request, so the schedule never waits for the connections.
	queue := make(chan int, total)
	start := time.Now()

	var wg sync.WaitGroup
	for range opts.Connections {
		c := newConnection(opts)
		wg.Go(func() {
			defer c.transport.CloseIdleConnections()
			for seq := range queue {
				if ctx.Err() != nil {
					continue // drain the queue without sending
				}
				due := start.Add(time.Duration(seq) * interval)
				records[seq] = c.send(ctx, seq, due)
				sent[seq] = true
			}
		})
	}
	schedule(ctx, queue, start, interval, total)
	close(queue)
	wg.Wait()

	report := &Report{Elapsed: time.Since(start)}
	for seq, rec := range records {
		if sent[seq] {
			report.Records = append(report.Records, rec)
		}
	}
	return report, nil
}

// schedule queues request numbers 0..total-1, each when it is due. It sleeps in steps of at
// least a millisecond and catches up with whatever became due meanwhile, so the average rate is
// exact even though sleeps are coarse.
func schedule(ctx context.Context, queue chan<- int, start time.Time, interval time.Duration, total int) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for seq := 0; seq < total; {
		for due := int(time.Since(start)/interval) + 1; seq < min(due, total); seq++ {
			queue <- seq
		}
		if seq == total {
			return
		}
		wait := max(time.Until(start.Add(time.Duration(seq)*interval)), time.Millisecond)
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
	}
}

// connection sends requests one at a time through its own transport, which holds at most one
// connection.
type connection struct {
	opts      Options
	transport *http.Transport
	client    *http.Client
	requests  int
}

func newConnection(opts Options) *connection {
	transport := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: opts.RequestTimeout}).DialContext,
		TLSHandshakeTimeout: opts.RequestTimeout,
		MaxConnsPerHost:     1,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
		DisableKeepAlives:   opts.RequestsPerConnection == 1,
		// A non-nil empty map keeps the transport on HTTP/1.1, as kube-apiserver calls webhooks.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	if opts.TLS != nil {
		transport.TLSClientConfig = opts.TLS.Clone()
	}
	return &connection{
		opts:      opts,
		transport: transport,
		// Redirects are answers too: Check decides about them.
		client: &http.Client{Transport: transport, Timeout: opts.RequestTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
}

func (c *connection) send(ctx context.Context, seq int, due time.Time) Record {
	rec := Record{Seq: seq, Due: due, Sent: time.Now()}
	finish := func(o Outcome, err error) Record {
		rec.Outcome, rec.Err, rec.Latency = o, err, time.Since(due)
		return rec
	}
	req, err := c.opts.NewRequest(seq)
	if err != nil {
		return finish(Rejected, fmt.Errorf("building request %d: %w", seq, err))
	}
	// connected tells a request that never reached the server from one lost on the way back.
	// GetConn resets it: when the transport retries on a fresh connection, the last attempt counts.
	var connected bool
	trace := &httptrace.ClientTrace{
		GetConn: func(string) { connected, rec.Connected, rec.Written = false, time.Time{}, time.Time{} },
		GotConn: func(httptrace.GotConnInfo) { connected, rec.Connected = true, time.Now() },
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				rec.Written = time.Now()
			}
		},
	}
	req = req.WithContext(httptrace.WithClientTrace(ctx, trace))
	resp, err := c.client.Do(req)
	c.requests++
	if n := c.opts.RequestsPerConnection; n > 1 && c.requests%n == 0 {
		defer c.transport.CloseIdleConnections()
	}
	if err != nil {
		if connected {
			return finish(Broken, err)
		}
		return finish(NotConnected, err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	resp.Body.Close()
	if err != nil {
		return finish(Broken, fmt.Errorf("reading the answer: %w", err))
	}
	if err := c.opts.Check(seq, resp, body); err != nil {
		return finish(Rejected, err)
	}
	return finish(OK, nil)
}
