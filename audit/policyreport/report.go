package policyreport

import (
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Format is one of the two report formats.
type Format string

const (
	// WGPolicy is the policy working group's wgpolicyk8s.io/v1alpha2 PolicyReport and
	// ClusterPolicyReport.
	WGPolicy Format = "wgpolicyk8s.io/v1alpha2"
	// OpenReports is openreports.io/v1alpha1 Report and ClusterReport.
	OpenReports Format = "openreports.io/v1alpha1"
)

// Formats are the formats, the working group's first.
func Formats() []Format { return []Format{WGPolicy, OpenReports} }

// Kind is the format's kind of a namespace's report, or of the cluster's.
func (f Format) Kind(cluster bool) string {
	switch {
	case f == OpenReports && cluster:
		return "ClusterReport"
	case f == OpenReports:
		return "Report"
	case cluster:
		return "ClusterPolicyReport"
	}
	return "PolicyReport"
}

// Report is one report: a namespace's (Metadata.Namespace set) or the cluster's.
type Report struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	// Source names what wrote every result; openreports.io only (the working group's format
	// has it on each result).
	Source  string   `json:"source,omitempty"`
	Summary Summary  `json:"summary"`
	Results []Result `json:"results,omitempty"`
}

// New is an empty report of format: the cluster's when namespace is "".
func New(format Format, name, namespace string) Report {
	return Report{APIVersion: string(format), Kind: format.Kind(namespace == ""), Metadata: Metadata{Name: name, Namespace: namespace}}
}

// Metadata is the part of an object's metadata a report is written with.
type Metadata struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Summary counts results by status.
type Summary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Error int `json:"error"`
	Skip  int `json:"skip"`
}

// Add counts one result of status s.
func (s *Summary) Add(status Status) {
	switch status {
	case StatusPass:
		s.Pass++
	case StatusFail:
		s.Fail++
	case StatusWarn:
		s.Warn++
	case StatusError:
		s.Error++
	case StatusSkip:
		s.Skip++
	}
}

// Total is the number of results counted.
func (s Summary) Total() int { return s.Pass + s.Fail + s.Warn + s.Error + s.Skip }

// Result is a policy's verdict on the objects it names.
type Result struct {
	// Source names what found the result.
	Source string `json:"source,omitempty"`
	// Policy is required; Rule names a part of it; Category groups policies.
	Policy    string    `json:"policy"`
	Rule      string    `json:"rule,omitempty"`
	Category  string    `json:"category,omitempty"`
	Severity  Severity  `json:"severity,omitempty"`
	Timestamp Timestamp `json:"timestamp"`
	Result    Status    `json:"result"`
	// Scored is false for results that only inform: warnings.
	Scored bool `json:"scored,omitempty"`
	// Resources are the objects the result is about.
	Resources  []corev1.ObjectReference `json:"resources,omitempty"`
	Message    string                   `json:"message,omitempty"`
	Properties map[string]string        `json:"properties,omitempty"`
}

// Timestamp is a moment as both formats write it (protobuf's Timestamp).
type Timestamp struct {
	Seconds int64 `json:"seconds"`
	Nanos   int32 `json:"nanos"`
}

// Status is a result's verdict.
type Status string

const (
	StatusPass  Status = "pass"  // the policy's requirements are met
	StatusFail  Status = "fail"  // they are not
	StatusWarn  Status = "warn"  // they are not, and the policy only warns
	StatusError Status = "error" // the policy could not be evaluated
	StatusSkip  Status = "skip"  // the policy was not evaluated
)

// Rank orders statuses, the worst first: fail, error, warn, skip, pass.
func (s Status) Rank() int {
	switch s {
	case StatusFail:
		return 0
	case StatusError:
		return 1
	case StatusWarn:
		return 2
	case StatusSkip:
		return 3
	}
	return 4
}

// Severity is how much a result matters.
type Severity string

const (
	SeverityCritical Severity = "critical"
	SeverityHigh     Severity = "high"
	SeverityMedium   Severity = "medium"
	SeverityLow      Severity = "low"
	SeverityInfo     Severity = "info"
)

// Rank orders severities, the highest first; no severity last.
func (s Severity) Rank() int {
	switch s {
	case SeverityCritical:
		return 0
	case SeverityHigh:
		return 1
	case SeverityMedium:
		return 2
	case SeverityLow:
		return 3
	case SeverityInfo:
		return 4
	}
	return 5
}

// Write writes reports as a YAML stream, one document each ("---" between them), what kubectl
// apply -f and create -f take.
func Write(w io.Writer, reports []Report) error {
	for i, r := range reports {
		b, err := yaml.Marshal(r)
		if err != nil {
			return fmt.Errorf("%s %s: %w", r.Kind, r.Metadata.Name, err)
		}
		if i > 0 {
			b = append([]byte("---\n"), b...)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
