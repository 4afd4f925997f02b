package lint

import (
	"fmt"
	"strings"
)

// Severity says how bad a finding is. The zero value is not a severity: Options use it for
// "not set".
type Severity int

const (
	// Info is advice: the configuration works, but could be narrower or cheaper.
	Info Severity = iota + 1
	// Warning is a risk: the configuration works today and can break the cluster or a workload
	// under conditions that do happen (a webhook down, a slow call, a node drain).
	Warning
	// Error is a configuration the apiserver refuses, or one that breaks as soon as its webhook
	// is unavailable.
	Error
)

// Severities returns every severity, lowest first.
func Severities() []Severity { return []Severity{Info, Warning, Error} }

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// ParseSeverity reads "info", "warning" (or "warn") and "error", in any case.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("unknown severity %q: use info, warning or error", s)
}

// MarshalText writes the severity's name, so JSON shows "warning", not 2.
func (s Severity) MarshalText() ([]byte, error) {
	if s < Info || s > Error {
		return nil, fmt.Errorf("cannot encode %s", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(text []byte) error {
	parsed, err := ParseSeverity(string(text))
	if err != nil {
		return err
	}
	*s = parsed
	return nil
}
