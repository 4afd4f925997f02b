package dispatch

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
)

// Metrics are kube-apiserver's admission webhook metrics, same names and labels, so dashboards
// built for a cluster work on admit's dispatcher. A nil *Metrics records nothing.
type Metrics struct {
	duration     *prometheus.HistogramVec
	requests     *prometheus.CounterVec
	rejections   *prometheus.CounterVec
	failOpen     *prometheus.CounterVec
	condErrors   *prometheus.CounterVec
	condExcluded *prometheus.CounterVec
	step         *prometheus.HistogramVec
}

// NewMetrics creates the metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_webhook_admission_duration_seconds",
			Help:    "Admission webhook latency in seconds, by webhook name, type (admit or validating), operation and whether it rejected.",
			Buckets: []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25},
		}, []string{"name", "type", "operation", "rejected"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_request_total",
			Help: "Admission webhook calls, by webhook name, type, operation, HTTP code and whether it rejected.",
		}, []string{"name", "type", "operation", "code", "rejected"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_rejection_count",
			Help: "Requests rejected by an admission webhook, by webhook name, type, operation, error type (calling_webhook_error, no_error, apiserver_internal_error) and code.",
		}, []string{"name", "type", "operation", "error_type", "rejection_code"}),
		failOpen: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_fail_open_count",
			Help: "Admission webhook calls that failed and were ignored (failurePolicy Ignore), by webhook name and type.",
		}, []string{"name", "type"}),
		condErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_match_condition_evaluation_errors_total",
			Help: "matchConditions that could not be evaluated, by webhook name, kind, type and operation.",
		}, []string{"name", "kind", "type", "operation"}),
		condExcluded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_match_condition_exclusions_total",
			Help: "Webhook calls skipped because a matchCondition was false, by webhook name, kind, type and operation.",
		}, []string{"name", "kind", "type", "operation"}),
		step: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_step_admission_duration_seconds",
			Help:    "Duration of the mutating (admit) and validating (validate) admission steps.",
			Buckets: []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5},
		}, []string{"type", "operation", "rejected"}),
	}
	for _, c := range []prometheus.Collector{m.duration, m.requests, m.rejections, m.failOpen, m.condErrors, m.condExcluded, m.step} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Rejection error types, as the apiserver labels them.
const (
	rejectionCallingError  = "calling_webhook_error"
	rejectionNoError       = "no_error"
	rejectionInternalError = "apiserver_internal_error"
)

func codeLabel(code int) string {
	if code > 600 {
		code = 600
	}
	return strconv.Itoa(code)
}

func (m *Metrics) observeCall(h *hook, op admissionv1.Operation, elapsed time.Duration, rejected bool, code int) {
	if m == nil {
		return
	}
	r := strconv.FormatBool(rejected)
	m.duration.WithLabelValues(h.name, h.typeLabel(), string(op), r).Observe(elapsed.Seconds())
	m.requests.WithLabelValues(h.name, h.typeLabel(), string(op), codeLabel(code), r).Inc()
}

func (m *Metrics) observeRejection(h *hook, op admissionv1.Operation, errorType string, code int) {
	if m == nil {
		return
	}
	m.rejections.WithLabelValues(h.name, h.typeLabel(), string(op), errorType, codeLabel(code)).Inc()
}

func (m *Metrics) observeFailOpen(h *hook) {
	if m == nil {
		return
	}
	m.failOpen.WithLabelValues(h.name, h.typeLabel()).Inc()
}

// matchConditionErrors counts conditions that failed to evaluate, one per condition as the
// apiserver counts them.
func (m *Metrics) matchConditionErrors(h *hook, op admissionv1.Operation, n int) {
	if m == nil || n == 0 {
		return
	}
	m.condErrors.WithLabelValues(h.name, "webhook", h.typeLabel(), string(op)).Add(float64(n))
}

// matchConditionExclusion uses "admit"/"validate" for the type label, as the apiserver does for
// this one metric.
func (m *Metrics) matchConditionExclusion(h *hook, op admissionv1.Operation) {
	if m == nil {
		return
	}
	typ := "validate"
	if h.mutating {
		typ = "admit"
	}
	m.condExcluded.WithLabelValues(h.name, "webhook", typ, string(op)).Inc()
}

func (m *Metrics) observeStep(typ string, op admissionv1.Operation, elapsed time.Duration, rejected bool) {
	if m == nil {
		return
	}
	m.step.WithLabelValues(typ, string(op), strconv.FormatBool(rejected)).Observe(elapsed.Seconds())
}
