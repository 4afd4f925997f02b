package lint

import (
	"fmt"
	"strconv"
	"strings"
)

// Finding is one problem in one webhook configuration.
type Finding struct {
	// Rule is the rule's ID, e.g. "B02"; Name its readable name, e.g. "fail-closed-own-namespace".
	Rule string `json:"rule"`
	Name string `json:"name"`
	// Severity of this finding: usually the rule's, some rules grade by failurePolicy.
	Severity Severity `json:"severity"`
	// Kind is the kind of the object the finding is about: MutatingWebhookConfiguration,
	// ValidatingWebhookConfiguration, an admission policy or a binding; Configuration its name.
	Kind          string `json:"kind"`
	Configuration string `json:"configuration"`
	// Webhook is the name of the webhook the finding is about; empty when it is about the
	// configuration as a whole.
	Webhook string `json:"webhook,omitempty"`
	// Field is the path of the field to change, as the apiserver writes paths:
	// "webhooks[0].namespaceSelector".
	Field string `json:"field,omitempty"`
	// File is the file the configuration was read from. Line and Column locate Field in it
	// (its key), or the nearest part of the path that is in the file when the field is unset
	// (the webhook, the configuration); ConfigurationLine is where the configuration's
	// document starts. All are 0 when unknown, e.g. read from a cluster.
	File              string `json:"file,omitempty"`
	Line              int    `json:"line,omitempty"`
	Column            int    `json:"column,omitempty"`
	ConfigurationLine int    `json:"configurationLine,omitempty"`
	// Message says what is wrong and why it matters; Hint how to fix it.
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	// Suppressed says why the finding does not count, if it does not.
	Suppressed Suppression `json:"suppressed,omitempty"`
}

// Suppression says who turned a finding off.
type Suppression string

const (
	// NotSuppressed findings count.
	NotSuppressed Suppression = ""
	// SuppressedByAnnotation findings are disabled by the configuration's DisableAnnotation.
	SuppressedByAnnotation Suppression = "annotation"
	// SuppressedByOption findings are disabled by Options.Disable (admit lint --disable).
	SuppressedByOption Suppression = "option"
)

// Location renders where the finding is: "file:line", "file", or "".
func (f Finding) Location() string {
	if f.File != "" && f.Line > 0 {
		return f.File + ":" + strconv.Itoa(f.Line)
	}
	return f.File
}

// ConfigurationLocation renders where the configuration is: "file:line", "file", or "".
func (f Finding) ConfigurationLocation() string {
	if f.File != "" && f.ConfigurationLine > 0 {
		return f.File + ":" + strconv.Itoa(f.ConfigurationLine)
	}
	return f.File
}

// Subject names what the finding is about: the configuration, then the webhook and the field
// when there are some, e.g.
//
//	MutatingWebhookConfiguration "injector", webhook "inject.example.com", webhooks[0].namespaceSelector
func (f Finding) Subject() string {
	parts := []string{fmt.Sprintf("%s %q", f.Kind, f.Configuration)}
	if f.Webhook != "" {
		parts = append(parts, fmt.Sprintf("webhook %q", f.Webhook))
	}
	if f.Field != "" {
		parts = append(parts, f.Field)
	}
	return strings.Join(parts, ", ")
}

// String renders the finding on one line, self-contained, for logs and tests:
//
//	hooks.yaml:3: error B02 MutatingWebhookConfiguration "injector", webhook "inject.example.com", webhooks[0].namespaceSelector: ...
func (f Finding) String() string {
	var b strings.Builder
	if loc := f.Location(); loc != "" {
		b.WriteString(loc + ": ")
	}
	fmt.Fprintf(&b, "%s %s %s: %s", f.Severity, f.Rule, f.Subject(), f.Message)
	if f.Suppressed != NotSuppressed {
		fmt.Fprintf(&b, " (suppressed by %s)", f.Suppressed)
	}
	return b.String()
}

// AtLeast returns the findings that count at threshold: not suppressed, with a severity of at
// least min. A threshold of 0 counts every severity.
func AtLeast(findings []Finding, min Severity) []Finding {
	var out []Finding
	for _, f := range findings {
		if f.Suppressed == NotSuppressed && f.Severity >= min {
			out = append(out, f)
		}
	}
	return out
}
