package audit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/markdown/markdowntest"
)

// An audit's Markdown renders as the verdict, the totals and the thresholds exceeded, the writes
// with new effects bounded with what the report left out, the steps and namespaces, and, folded,
// what could not be reviewed.
func TestWriteMarkdown(t *testing.T) {
	policy := Step{Type: engine.TypeValidatingPolicy, Name: "replica-cap"}
	r := &Report{Source: "dump.yaml", Operation: "UPDATE", Baseline: "current/", Proposal: "proposal.yaml", Complete: true,
		Totals:         Totals{Read: 120, Audited: 100, NewlyDenied: 30, NewlyWarned: 2, Unreviewed: 1},
		Exceeded:       []string{"30 writes newly denied, more than the 0 allowed (--max-new-denials)"},
		Steps:          []StepCount{{Step: policy, Change: "added", Matched: 40, Denied: 30}},
		Namespaces:     []NamespaceCount{{Namespace: "shop", Audited: 60, Denied: 20}, {Audited: 5}},
		Unreviewed:     []Unreviewed{{Reason: "no resource for kind <Widget>", Count: 1, First: "dump.yaml:40"}},
		OmittedObjects: 3,
	}
	for i := range 27 {
		r.Objects = append(r.Objects, Finding{Source: fmt.Sprintf("dump.yaml:%d", 100+i), Operation: "UPDATE", Kind: "Deployment", Namespace: "shop",
			Name: fmt.Sprintf("web-%d", i), Effects: []Effect{EffectDenied}, Denial: &Denial{Step: policy, Code: 422, Message: "at most 5 | replicas"}})
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	html := markdowntest.Render(t, md.String())
	for _, want := range []string{
		"<h3>❌ admit audit</h3>",
		"The objects of dump.yaml, each written again unchanged, proposal <code>proposal.yaml</code> against baseline <code>current/</code>.",
		"100 writes audited: <strong>30 newly denied</strong>",
		"<li>❌ 30 writes newly denied, more than the 0 allowed (--max-new-denials)</li>",
		"<td>UPDATE Deployment shop/web-0</td>",
		"<td>replica-cap: 422 at most 5 | replicas</td>",
		"<em>and 5 more writes with new effects</em>",
		"<td>validating-policy replica-cap</td>",
		"<td>(cluster-scoped)</td>",
		"<details><summary>Not reviewed</summary>",
		"<td>no resource for kind &lt;Widget&gt;</td>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendered audit lacks %q:\n%s", want, html)
		}
	}
	if n := strings.Count(html, "<td><strong>denied</strong></td>"); n != 25 {
		t.Errorf("%d writes listed, want 25 (the table's bound)", n)
	}
}
