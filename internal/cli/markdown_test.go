package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/admitkit/admit/internal/markdown/markdowntest"
)

// Each command's -o markdown renders, as GitHub renders a pull request's comment, as a heading
// with the verdict, then its tables; the exit code is the same as with text.
func TestMarkdownOutput(t *testing.T) {
	f := newAuditFixture(t)
	testDir := filepath.Dir(writeTestFile(t, "admit-test.yaml", suiteOnBuiltinWebhooks))
	review := filepath.Join("testdata", "review", "several-input.yaml")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"review", []string{"review", "-f", review, "-o", "markdown"}, ExitBadInput, []string{
			"<h3>❌ admit review</h3>", "<td><strong>not reviewed</strong></td>", "<details><summary>Assumed of the cluster</summary>",
		}},
		{"test", []string{"test", testDir, "-o", "markdown"}, ExitOK, []string{
			"<h3>✅ admit test</h3>", "<p>2 cases in 1 file: 2 passed, 0 failed</p>",
		}},
		{"lint", []string{"lint", filepath.Join("..", "..", "examples", "audit", "webhook.yaml"), "-o", "markdown", "--severity", "info"}, ExitRejected, []string{
			"<h3>❌ admit lint</h3>", "<th>Severity</th>",
		}},
		{"audit", []string{"audit", "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "-o", "markdown"}, ExitRejected, []string{
			"<h3>❌ admit audit</h3>", "<td>UPDATE Pod shop/web-1</td>", "<th>Namespace</th>",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := Run(context.Background(), tt.args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.wantCode, errOut.String())
			}
			html := markdowntest.Render(t, out.String())
			for _, want := range tt.want {
				if !strings.Contains(html, want) {
					t.Errorf("the rendered output lacks %q:\n%s", want, html)
				}
			}
		})
	}
}
