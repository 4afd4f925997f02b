package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Finding is one finding of admit lint -o json (lint.Finding). It is decoded here rather than
// imported so that this program reads what the binary prints, as a user's script would.
type Finding struct {
	Rule          string `json:"rule"`
	Name          string `json:"name"`
	Severity      string `json:"severity"`
	Kind          string `json:"kind"`
	Configuration string `json:"configuration"`
	Webhook       string `json:"webhook,omitempty"`
	Field         string `json:"field,omitempty"`
	File          string `json:"file,omitempty"`
	Line          int    `json:"line,omitempty"`
	Message       string `json:"message"`
	Hint          string `json:"hint,omitempty"`
	Suppressed    string `json:"suppressed,omitempty"`
}

// Severities, as admit lint prints them.
const (
	severityError   = "error"
	severityWarning = "warning"
	severityInfo    = "info"
)

// counts reports whether the finding is a warning or an error: those are what a user acts on,
// and what the verdicts and the precision are about.
func (f Finding) counts() bool {
	return f.Severity == severityError || f.Severity == severityWarning
}

// Exit codes of admit lint.
const (
	exitClean      = 0
	exitFindings   = 1
	exitBadInput   = 2
	maxStderrLines = 20
)

// buildAdmit builds ./cmd/admit into dir, once for all projects.
func buildAdmit(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "admit")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/admit").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building admit: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return bin, nil
}

// lintOutput is what one admit lint run gave.
type lintOutput struct {
	Findings []Finding
	// Notes hold what admit lint wrote to its standard error, e.g. the inputs it refused
	// (exit code 2) or that there were no webhook configurations.
	Notes []string
}

// runLint runs admit lint on m's files, from m.Root so that File fields are paths in the
// repository. Exit code 2 (bad input) is not a failure of the evaluation: it is a result, and
// what admit printed before refusing is kept.
func runLint(ctx context.Context, admit string, m materialized) (lintOutput, error) {
	args := append([]string{"lint", "-R", "-o", "json", "--severity", "info"}, m.LintPaths...)
	cmd := exec.CommandContext(ctx, admit, args...)
	cmd.Dir = m.Root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitClean
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return lintOutput{}, fmt.Errorf("running admit lint: %w", err)
		}
		code = exitErr.ExitCode()
	}
	if code != exitClean && code != exitFindings && code != exitBadInput {
		return lintOutput{}, fmt.Errorf("admit lint exited %d: %s", code, strings.TrimSpace(stderr.String()))
	}
	findings, err := parseFindings(stdout.Bytes())
	if err != nil {
		return lintOutput{}, fmt.Errorf("admit lint (exit code %d): %w", code, err)
	}
	return lintOutput{Findings: findings, Notes: stderrNotes(code, stderr.String())}, nil
}

// parseFindings decodes admit lint -o json: an object with the findings, or (as older versions
// printed) the array alone. Suppressed findings are dropped: a project turned them off on
// purpose. Empty output (admit refused the input) has none.
func parseFindings(out []byte) ([]Finding, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, nil
	}
	var all []Finding
	if out[0] == '[' {
		if err := json.Unmarshal(out, &all); err != nil {
			return nil, fmt.Errorf("decoding the findings: %w", err)
		}
	} else {
		var report struct {
			Findings []Finding `json:"findings"`
		}
		if err := json.Unmarshal(out, &report); err != nil {
			return nil, fmt.Errorf("decoding the findings: %w", err)
		}
		all = report.Findings
	}
	var kept []Finding
	for _, f := range all {
		if f.Suppressed == "" {
			kept = append(kept, f)
		}
	}
	return kept, nil
}

// stderrNotes turns admit lint's standard error into notes for the report, a note a line,
// bounded so that a flood of errors does not bury the report.
func stderrNotes(code int, stderr string) []string {
	var notes []string
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			notes = append(notes, line)
		}
	}
	if len(notes) > maxStderrLines {
		notes = append(notes[:maxStderrLines], fmt.Sprintf("(%d more lines)", len(notes)-maxStderrLines))
	}
	if code == exitBadInput {
		notes = append([]string{"admit lint exited 2 (bad input)"}, notes...)
	}
	return notes
}
