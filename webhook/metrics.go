package webhook

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are admission-level metrics for the webhooks of one server. Labels are bounded: the
// webhook (its path or name), the operation and the outcome — never a namespace or object name.
// Create one with NewMetrics on the registry you serve; a nil *Metrics records nothing.
type Metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	inFlight    *prometheus.GaugeVec
	badRequests *prometheus.CounterVec
	panics      *prometheus.CounterVec
	warnings    *prometheus.CounterVec
	certExpiry  prometheus.Gauge
}

// durationBuckets reach 10 s, the default webhook timeout; the apiserver's own buckets used to stop
// at 2.5 s, which hid the slow tail operators most need to see.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// NewMetrics creates the metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "admit_webhook_requests_total",
			Help: "Admission requests answered, by webhook, operation and outcome (allowed, patched, denied, error).",
		}, []string{"webhook", "operation", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "admit_webhook_request_duration_seconds",
			Help:    "Time from receiving an admission request to writing its answer, by webhook, operation and outcome.",
			Buckets: durationBuckets,
		}, []string{"webhook", "operation", "outcome"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "admit_webhook_requests_in_flight",
			Help: "Admission requests being handled, by webhook.",
		}, []string{"webhook"}),
		badRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "admit_webhook_bad_requests_total",
			Help: "HTTP requests refused before admission (wrong method or media type, too large, undecodable), by webhook and HTTP code.",
		}, []string{"webhook", "code"}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "admit_webhook_panics_total",
			Help: "Panics recovered in webhook handlers, by webhook.",
		}, []string{"webhook"}),
		warnings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "admit_webhook_warnings_total",
			Help: "Warnings returned to API clients, by webhook.",
		}, []string{"webhook"}),
		certExpiry: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "admit_webhook_certificate_expiration_timestamp_seconds",
			Help: "Expiry time (Unix seconds) of the serving certificate currently in use.",
		}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.inFlight, m.badRequests, m.panics, m.warnings, m.certExpiry} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Metrics) observe(webhook, operation string, outcome Outcome, elapsed time.Duration, warnings int) {
	if m == nil {
		return
	}
	label := outcome.String()
	m.requests.WithLabelValues(webhook, operation, label).Inc()
	m.duration.WithLabelValues(webhook, operation, label).Observe(elapsed.Seconds())
	if warnings > 0 {
		m.warnings.WithLabelValues(webhook).Add(float64(warnings))
	}
}

func (m *Metrics) startRequest(webhook string) func() {
	if m == nil {
		return func() {}
	}
	g := m.inFlight.WithLabelValues(webhook)
	g.Inc()
	return g.Dec
}

func (m *Metrics) badRequest(webhook string, code int) {
	if m == nil {
		return
	}
	m.badRequests.WithLabelValues(webhook, httpCodeLabel(code)).Inc()
}

func (m *Metrics) panicked(webhook string) {
	if m == nil {
		return
	}
	m.panics.WithLabelValues(webhook).Inc()
}

// SetCertificateExpiry records when the serving certificate expires.
func (m *Metrics) SetCertificateExpiry(t time.Time) {
	if m == nil {
		return
	}
	m.certExpiry.Set(float64(t.Unix()))
}

func httpCodeLabel(code int) string {
	switch code {
	case 400:
		return "400"
	case 405:
		return "405"
	case 413:
		return "413"
	case 415:
		return "415"
	default:
		return "other"
	}
}
