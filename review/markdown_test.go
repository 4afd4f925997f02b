package review

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/markdown/markdowntest"
)

// markdownOutcome is a reviewed ConfigMap: admitted, with warnings, or rejected with a message.
func markdownOutcome(i int, allowed bool, message string, warnings ...string) *Outcome {
	res := &engine.Result{Allowed: allowed, Warnings: warnings}
	if !allowed {
		res.Status = &metav1.Status{Code: 422, Message: message}
	}
	return &Outcome{Source: fmt.Sprintf("build.yaml:%d", i), Result: res, Request: &engine.Request{
		Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "shop", Name: fmt.Sprintf("cm-%d", i),
	}}
}

var (
	markdownRow  = regexp.MustCompile(`(?s)<tr>\s*<td>(.*?)</td>`)
	markdownMore = regexp.MustCompile(`<em>and (\d+) more ([a-z ]+)</em>`)
)

// The Markdown of a review renders as a heading, the totals, the objects not admitted worst
// first, and the admitted ones with warnings folded; each table bounded, with how many more.
func TestMarkdownWriter(t *testing.T) {
	var outcomes []*Outcome
	for i := range 40 {
		outcomes = append(outcomes, markdownOutcome(i, false, "no | pipes <b>here</b>\nsecond line"))
	}
	for i := 40; i < 43; i++ {
		outcomes = append(outcomes, &Outcome{Source: fmt.Sprintf("build.yaml:%d", i), Err: fmt.Errorf("build.yaml:%d: %w", i, errors.New("cannot be handled"))})
	}
	for i := 43; i < 100; i++ {
		outcomes = append(outcomes, markdownOutcome(i, true, "", "a warning"))
	}
	var md bytes.Buffer
	mw := NewMarkdownWriter(&md)
	for _, o := range outcomes {
		if err := mw.Write(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	html := markdowntest.Render(t, md.String())
	for _, want := range []string{
		"<h3>❌ admit review</h3>",
		"<p>100 objects: 57 admitted (57 with warnings), 40 rejected, 3 not reviewed</p>",
		"<td>422 no | pipes &lt;b&gt;here&lt;/b&gt;<br>second line</td>",
		"<td>cannot be handled</td>",
		"<details><summary>57 objects admitted with warnings</summary>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendered review lacks %q:\n%s", want, html)
		}
	}
	var firsts []string
	for _, m := range markdownRow.FindAllStringSubmatch(html, -1) {
		first := m[1]
		if strings.HasPrefix(first, "CREATE ConfigMap shop/cm-") {
			first = "CREATE ConfigMap shop/cm-"
		}
		firsts = append(firsts, first)
	}
	// Not reviewed first, then rejected, 25 rows; then the warnings' table, 25 rows.
	want := append(append(repeat("<strong>not reviewed</strong>", 3), repeat("<strong>rejected</strong>", 22)...), repeat("CREATE ConfigMap shop/cm-", 25)...)
	if diff := cmp.Diff(want, firsts); diff != "" {
		t.Errorf("the tables' rows (-want +got):\n%s", diff)
	}
	var more []string
	for _, m := range markdownMore.FindAllStringSubmatch(html, -1) {
		more = append(more, m[1]+" "+m[2])
	}
	if diff := cmp.Diff([]string{"18 objects not admitted", "32 objects"}, more); diff != "" {
		t.Errorf("the \"and N more\" lines (-want +got):\n%s", diff)
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// A review of objects all admitted says so, with no table.
func TestMarkdownWriterAllAdmitted(t *testing.T) {
	var md bytes.Buffer
	mw := NewMarkdownWriter(&md)
	if err := mw.Write(markdownOutcome(1, true, "")); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := markdowntest.Render(t, md.String()), "<h3>✅ admit review</h3>\n<p>1 object: 1 admitted (0 with warnings), 0 rejected</p>\n"; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
}
