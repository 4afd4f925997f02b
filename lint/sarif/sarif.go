package sarif

import (
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/admitkit/admit/lint"
)

// Version and Schema identify the SARIF version written.
const (
	Version = "2.1.0"
	Schema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

// Log is a SARIF log: the top-level object.
type Log struct {
	Version string `json:"version"`
	Schema  string `json:"$schema"`
	Runs    []Run  `json:"runs"`
}

// Run is one invocation of a tool and its results.
type Run struct {
	Tool Tool `json:"tool"`
	// Invocations say how the run went; a run that could not read all its input says so, so
	// that its results are not taken for those of the whole input.
	Invocations []Invocation `json:"invocations,omitempty"`
	// Results is always present, empty when there is nothing to report: an absent list means
	// "not computed" in SARIF.
	Results []Result `json:"results"`
}

// Tool describes the analysis tool.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the tool's main component and its rules.
type Driver struct {
	Name           string                `json:"name"`
	Version        string                `json:"version,omitempty"`
	InformationURI string                `json:"informationUri,omitempty"`
	Rules          []ReportingDescriptor `json:"rules,omitempty"`
}

// ReportingDescriptor describes a rule.
type ReportingDescriptor struct {
	ID                   string                  `json:"id"`
	Name                 string                  `json:"name,omitempty"`
	ShortDescription     *Message                `json:"shortDescription,omitempty"`
	FullDescription      *Message                `json:"fullDescription,omitempty"`
	DefaultConfiguration *ReportingConfiguration `json:"defaultConfiguration,omitempty"`
	// HelpURI is the rule's documentation, which code-scanning views link to.
	HelpURI string `json:"helpUri,omitempty"`
}

// Invocation is one run of the tool: whether it completed, and what went wrong.
type Invocation struct {
	ExecutionSuccessful        bool           `json:"executionSuccessful"`
	ToolExecutionNotifications []Notification `json:"toolExecutionNotifications,omitempty"`
}

// Notification is a problem of the run itself (an input that did not read), not a result.
type Notification struct {
	Level   string  `json:"level"`
	Message Message `json:"message"`
}

// ReportingConfiguration is a rule's default level.
type ReportingConfiguration struct {
	Level string `json:"level"`
}

// Message is plain text.
type Message struct {
	Text string `json:"text"`
}

// Result is one finding.
type Result struct {
	RuleID       string        `json:"ruleId"`
	RuleIndex    int           `json:"ruleIndex"`
	Level        string        `json:"level"`
	Message      Message       `json:"message"`
	Locations    []Location    `json:"locations,omitempty"`
	Suppressions []Suppression `json:"suppressions,omitempty"`
}

// Location is where a result is: a file and line, and the configuration and field.
type Location struct {
	PhysicalLocation *PhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []LogicalLocation `json:"logicalLocations,omitempty"`
}

// PhysicalLocation is a position in a file.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

// ArtifactLocation is a file, as a URI reference (relative paths stay relative).
type ArtifactLocation struct {
	URI string `json:"uri"`
}

// Region is a range of a file; lint knows the line a configuration starts at.
type Region struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// LogicalLocation names the configuration and field a result is about.
type LogicalLocation struct {
	Name               string `json:"name,omitempty"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind,omitempty"`
}

// Suppression says a result was turned off: "inSource" by the configuration's annotation,
// "external" by the command line.
type Suppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// Level maps a severity to a SARIF level: "error", "warning" or "note".
func Level(s lint.Severity) string {
	switch s {
	case lint.Error:
		return "error"
	case lint.Warning:
		return "warning"
	}
	return "note"
}

// FromFindings builds a log with one run of driver (its Rules are filled from rules) holding
// findings, in order. A finding's message reads like Finding.String without the location, then
// its hint; suppressed findings carry a suppression. Findings of rules not in rules are an
// error: a SARIF result must point at its rule.
func FromFindings(driver Driver, rules []lint.Rule, findings []lint.Finding) (*Log, error) {
	index := make(map[string]int, len(rules))
	driver.Rules = make([]ReportingDescriptor, len(rules))
	for i, r := range rules {
		index[r.ID] = i
		driver.Rules[i] = ReportingDescriptor{
			ID: r.ID, Name: r.Name,
			ShortDescription:     &Message{Text: r.Summary},
			FullDescription:      &Message{Text: r.Help},
			DefaultConfiguration: &ReportingConfiguration{Level: Level(r.Severity)},
		}
	}
	results := make([]Result, 0, len(findings))
	for _, f := range findings {
		i, ok := index[f.Rule]
		if !ok {
			return nil, fmt.Errorf("finding of unknown rule %q: %s", f.Rule, f)
		}
		results = append(results, result(f, i))
	}
	return &Log{Version: Version, Schema: Schema, Runs: []Run{{Tool: Tool{Driver: driver}, Results: results}}}, nil
}

func result(f lint.Finding, ruleIndex int) Result {
	text := f.Subject() + ": " + f.Message
	if f.Hint != "" {
		text += ". Fix: " + f.Hint
	}
	r := Result{RuleID: f.Rule, RuleIndex: ruleIndex, Level: Level(f.Severity), Message: Message{Text: text}}
	qualified := f.Kind + "/" + f.Configuration
	if f.Field != "" {
		qualified += "/" + f.Field
	}
	location := Location{LogicalLocations: []LogicalLocation{{Name: f.Configuration, FullyQualifiedName: qualified, Kind: "resource"}}}
	if f.File != "" && f.Line > 0 {
		location.PhysicalLocation = &PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: fileURI(f.File)}, Region: &Region{StartLine: f.Line, StartColumn: f.Column}}
	}
	r.Locations = []Location{location}
	switch f.Suppressed {
	case lint.SuppressedByAnnotation:
		r.Suppressions = []Suppression{{Kind: "inSource", Justification: "annotation " + lint.DisableAnnotation}}
	case lint.SuppressedByOption:
		r.Suppressions = []Suppression{{Kind: "external", Justification: "disabled on the command line"}}
	}
	return r
}

// fileURI turns a path into a URI reference: relative paths stay relative (SARIF consumers
// resolve them against the repository), absolute ones become file URIs.
func fileURI(path string) string {
	slashed := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		return (&url.URL{Scheme: "file", Path: slashed}).String()
	}
	return (&url.URL{Path: slashed}).String()
}
