//go:build !e2e

package cifit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The emulation itself: the parts of the runner's and pre-commit's behaviour the other tests
// rest on.

func TestEvaluate(t *testing.T) {
	c := &Contexts{Values: map[string]any{
		"inputs": map[string]any{"command": "lint", "upload-sarif": "true", "empty": ""},
		"steps":  map[string]any{"run": map[string]any{"outputs": map[string]any{"exit-code": "0", "report": "/tmp/r.sarif"}}},
	}}
	for _, tc := range []struct {
		expr string
		want any
	}{
		{"inputs.command == 'lint'", true},
		{"inputs.command == 'LINT'", true}, // strings compare case-insensitively
		{"inputs.command != 'lint'", false},
		{"inputs.upload-sarif == 'true' && steps.run.outputs.report != ''", true},
		{"steps.run.outputs.exit-code != '0'", false},
		{"steps.run.outputs.exit-code == 0", true},        // a string and a number compare as numbers
		{"steps.missing.outputs.exit-code != '0'", false}, // null and '0' compare as the number 0
		{"steps.missing.outputs.exit-code", nil},
		{"inputs.empty || 'default'", "default"},
		{"inputs.command && 'then'", "then"},
		{"!(inputs.command == 'test') && !inputs.empty", true},
		{"'it''s'", "it's"},
		{"always()", true},
		{"failure()", false},
	} {
		got, err := c.Evaluate(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if !cmp.Equal(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.expr, got, tc.want)
		}
	}
	for _, bad := range []string{"matrix.os", "inputs.command ==", "toJSON(inputs)", "inputs['command']", "inputs.command < 'x'", "'open"} {
		if v, err := c.Evaluate(bad); err == nil {
			t.Errorf("%s = %#v, want an error: the emulation evaluates no more than it knows", bad, v)
		}
	}
}

func TestCondition(t *testing.T) {
	c := &Contexts{Values: map[string]any{"inputs": map[string]any{"command": "lint"}}}
	for _, tc := range []struct {
		cond   string
		failed bool
		want   bool
	}{
		{"", false, true},
		{"", true, false},
		{"inputs.command == 'lint'", true, false}, // success() && (...)
		{"${{ inputs.command == 'lint' }}", false, true},
		{"always() && inputs.command == 'lint'", true, true},
		{"failure()", true, true},
	} {
		c.Failed = tc.failed
		if got, err := c.Condition(tc.cond); err != nil || got != tc.want {
			t.Errorf("if %q after a failure %v = %v, %v; want %v", tc.cond, tc.failed, got, err, tc.want)
		}
	}
}

func TestInterpolate(t *testing.T) {
	c := &Contexts{Values: map[string]any{"inputs": map[string]any{"args": "a b"}, "github": map[string]any{"action_path": "/act"}}}
	got, err := c.Interpolate("${{ github.action_path }}/x ${{inputs.args}} ${{ inputs.nothing }}.")
	if err != nil || got != "/act/x a b ." {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := c.Interpolate("${{ vars.x }}"); err == nil {
		t.Error("an unknown context was interpolated")
	}
}

func TestParseFileCommands(t *testing.T) {
	got, err := parseFileCommands("a=1\nb=x=y\n\nlong<<EOF\nline 1\nline 2\nEOF\nc=\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "1", "b": "x=y", "long": "line 1\nline 2", "c": ""}; !cmp.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	for _, bad := range []string{"novalue\n", "x<<EOF\nnever closed\n"} {
		if _, err := parseFileCommands(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestJobCarriesStateBetweenSteps: what a step writes to GITHUB_ENV and GITHUB_PATH reaches the
// later steps, its outputs reach expressions, a failed step skips the later ones but those that
// always run, and continue-on-error keeps the action from failing.
func TestJobCarriesStateBetweenSteps(t *testing.T) {
	dir := t.TempDir()
	const actionYAML = `name: t
description: t
inputs:
  greeting: {description: g, default: hello}
outputs:
  said: {description: s, value: "${{ steps.first.outputs.said }}"}
runs:
  using: composite
  steps:
  - id: first
    shell: bash
    env: {GREETING: "${{ inputs.greeting }}"}
    run: |
      echo "said=$GREETING from $(basename "$PWD")" >> "$GITHUB_OUTPUT"
      echo "LATER=yes" >> "$GITHUB_ENV"
      mkdir -p "$RUNNER_TEMP/bin" && printf '#!/bin/sh\necho tool\n' > "$RUNNER_TEMP/bin/tool" && chmod +x "$RUNNER_TEMP/bin/tool"
      echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
    working-directory: sub
  - id: second
    shell: bash
    continue-on-error: true
    run: 'echo "$LATER $(tool) ${{ steps.first.outputs.said }}"; exit 3'
  - id: third
    shell: bash
    run: exit 4
  - id: skipped
    shell: bash
    run: echo never
  - id: cleanup
    if: always()
    shell: bash
    run: echo "# done" >> "$GITHUB_STEP_SUMMARY"
`
	for name, data := range map[string]string{"action.yml": actionYAML, "sub/.keep": ""} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	action, err := LoadAction(dir)
	if err != nil {
		t.Fatal(err)
	}
	job, err := NewJob(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := job.Run(context.Background(), action, map[string]string{"greeting": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Outputs["said"]; got != "hi from sub" {
		t.Errorf("output said = %q", got)
	}
	if got := strings.TrimSpace(run.Step("second").Output); got != "yes tool hi from sub" || run.Step("second").ExitCode != 3 {
		t.Errorf("second step: %q, exit %d", got, run.Step("second").ExitCode)
	}
	if !run.Failed || run.Step("third").ExitCode != 4 || !run.Step("skipped").Skipped || run.Step("cleanup").Skipped {
		t.Errorf("failed %v, steps %+v", run.Failed, run.Steps)
	}
	if job.Summary() != "# done\n" {
		t.Errorf("summary %q", job.Summary())
	}
	if _, err := job.Run(context.Background(), action, map[string]string{"greting": "typo"}); err == nil {
		t.Error("an input the action does not declare was taken")
	}
}

func TestPortablePattern(t *testing.T) {
	for _, p := range []string{``, `^$`, `\.(ya?ml|json)$`, `(^|/)[^/]*(webhook|polic(y|ies))[^/]*\.ya?ml$`, `^deploy/[a-z0-9_-]+/`} {
		if err := PortablePattern(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{`\d+\.yaml`, `(?i)webhook`, `(?P<name>x)`, `\bwebhook`, `[[:alpha:]]`, `x{2}`, `(`} {
		if err := PortablePattern(p); err == nil {
			t.Errorf("%s: taken as portable", p)
		}
	}
}
