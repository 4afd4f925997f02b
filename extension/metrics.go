package extension

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// outcome is the "outcome" metric label of one call.
type outcome string

const (
	outcomeSuccess outcome = "success" // answered Success
	outcomeFailure outcome = "failure" // answered Failure
	outcomeError   outcome = "error"   // calling error returned to the caller
	outcomeIgnored outcome = "ignored" // calling error swallowed by failurePolicy Ignore
)

// observation is what one call contributes to the metrics.
type observation struct {
	extension string
	hook      string
	outcome   outcome
	reason    CallingErrorReason // set for outcomeError and outcomeIgnored
	policy    FailurePolicy
	duration  time.Duration
}

// observer is the metrics sink. Production uses Prometheus; tests substitute a sink that blocks
// to prove calls never wait for it.
type observer interface {
	observe(observation)
}

// prometheusMetrics follows the Cluster API Runtime SDK client metrics (requests total and
// duration per hook) under an admit_extension_ prefix, adding an outcome label and a counter of
// calling errors by reason and failure policy so that ignored errors stay visible.
type prometheusMetrics struct {
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	callingErrors *prometheus.CounterVec
}

func newPrometheusMetrics() *prometheusMetrics {
	return &prometheusMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "admit_extension_requests_total",
			Help: "Calls to extensions by extension, hook and outcome (success, failure, error, ignored).",
		}, []string{"extension", "hook", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "admit_extension_request_duration_seconds",
			Help: "Duration of calls to extensions by extension, hook and outcome.",
			// From 5 ms up to MaxTimeout: no call lasts longer.
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"extension", "hook", "outcome"}),
		callingErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "admit_extension_calling_errors_total",
			Help: "Calling errors (transport, timeout, non-200, undecodable) by extension, hook, reason and failure policy; Ignore ones were swallowed.",
		}, []string{"extension", "hook", "reason", "failure_policy"}),
	}
}

func (m *prometheusMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.duration, m.callingErrors}
}

func (m *prometheusMetrics) observe(o observation) {
	m.requests.WithLabelValues(o.extension, o.hook, string(o.outcome)).Inc()
	m.duration.WithLabelValues(o.extension, o.hook, string(o.outcome)).Observe(o.duration.Seconds())
	if o.outcome == outcomeError || o.outcome == outcomeIgnored {
		m.callingErrors.WithLabelValues(o.extension, o.hook, string(o.reason), string(o.policy)).Inc()
	}
}

// metricsRecorder keeps metrics off the critical path: a call only offers its observation to a
// bounded queue, and one goroutine feeds the sink. When the queue is full the observation is
// dropped and counted; a call never waits for a slow sink (a contended registry, a custom
// collector doing I/O).
type metricsRecorder struct {
	queue     chan observation
	sink      observer
	dropped   prometheus.Counter
	stop      chan struct{}
	drained   chan struct{}
	closeOnce sync.Once
}

func newMetricsRecorder(reg prometheus.Registerer, buffer int, sink observer, collectors []prometheus.Collector) (*metricsRecorder, error) {
	r := &metricsRecorder{
		queue: make(chan observation, buffer),
		sink:  sink,
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "admit_extension_metrics_dropped_total",
			Help: "Call observations dropped because the metrics queue was full; non-zero means the other admit_extension_ metrics undercount.",
		}),
		stop:    make(chan struct{}),
		drained: make(chan struct{}),
	}
	for _, c := range append(collectors, r.dropped) {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering extension metrics (use prometheus.WrapRegistererWith to give each Caller its own labels): %w", err)
		}
	}
	go r.drain()
	return r, nil
}

// record never blocks.
func (r *metricsRecorder) record(o observation) {
	select {
	case r.queue <- o:
	default:
		r.dropped.Inc()
	}
}

func (r *metricsRecorder) drain() {
	defer close(r.drained)
	for {
		select {
		case o := <-r.queue:
			r.sink.observe(o)
		case <-r.stop:
			// Flush what was queued before close so that a final scrape (or a test) sees it.
			for {
				select {
				case o := <-r.queue:
					r.sink.observe(o)
				default:
					return
				}
			}
		}
	}
}

// close stops the drain goroutine after flushing the queue. Observations recorded afterwards are
// queued but never observed; they do not block either.
func (r *metricsRecorder) close() {
	r.closeOnce.Do(func() { close(r.stop) })
	<-r.drained
}
