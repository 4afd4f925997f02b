package lint

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/internal/markdown/markdowntest"
)

var markdownSeverities = regexp.MustCompile(`<tr>\s*<td><strong>([a-z]+)</strong></td>`)

// Lint's Markdown renders as the summary, then the findings, the most severe first and bounded,
// then how to fix them, folded; suppressed findings and those below the threshold are counted,
// not listed.
func TestWriteMarkdown(t *testing.T) {
	var findings []Finding
	for i := range 20 {
		findings = append(findings, Finding{Rule: "D01", Name: "long-timeout", Severity: Warning, Kind: "ValidatingWebhookConfiguration",
			Configuration: fmt.Sprintf("hooks-%d", i), Webhook: "a.example.com", File: "deploy/hooks.yaml", Line: 10 + i,
			Message: "timeoutSeconds | 30 holds <every> write", Hint: "lower it to 5"})
	}
	for i := range 10 {
		findings = append(findings, Finding{Rule: "B02", Name: "fail-closed-own-namespace", Severity: Error, Kind: "MutatingWebhookConfiguration",
			Configuration: fmt.Sprintf("injector-%d", i), Message: "fails closed on its own namespace"})
	}
	findings = append(findings,
		Finding{Rule: "A01", Name: "x", Severity: Info, Kind: "MutatingWebhookConfiguration", Configuration: "quiet", Message: "below the threshold"},
		Finding{Rule: "D01", Name: "long-timeout", Severity: Warning, Kind: "MutatingWebhookConfiguration", Configuration: "off", Message: "suppressed", Suppressed: SuppressedByAnnotation})
	var md bytes.Buffer
	if err := WriteMarkdown(&md, findings, Warning); err != nil {
		t.Fatal(err)
	}
	html := markdowntest.Render(t, md.String())
	for _, want := range []string{
		"<h3>❌ admit lint</h3>",
		"<p>10 errors, 20 warnings (1 suppressed, 1 below warning)</p>",
		"<td><code>D01</code> long-timeout</td>",
		"<td>timeoutSeconds | 30 holds &lt;every&gt; write</td>",
		"<td><code>deploy/hooks.yaml:10</code></td>",
		"<em>and 5 more findings</em>",
		"<details><summary>How to fix them</summary>",
		"<li><code>D01</code> ValidatingWebhookConfiguration hooks-0, webhook a.example.com: lower it to 5</li>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendered findings lack %q:\n%s", want, html)
		}
	}
	var severities []string
	for _, m := range markdownSeverities.FindAllStringSubmatch(html, -1) {
		severities = append(severities, m[1])
	}
	want := append(strings.Split(strings.Repeat("error ", 10), " ")[:10], strings.Split(strings.Repeat("warning ", 15), " ")[:15]...)
	if diff := cmp.Diff(want, severities); diff != "" {
		t.Errorf("the table's severities, the most severe first (-want +got):\n%s", diff)
	}
}

// No finding at the threshold: the summary alone.
func TestWriteMarkdownNoFindings(t *testing.T) {
	var md bytes.Buffer
	if err := WriteMarkdown(&md, nil, Warning); err != nil {
		t.Fatal(err)
	}
	if got, want := markdowntest.Render(t, md.String()), "<h3>✅ admit lint</h3>\n<p>no findings</p>\n"; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
}
