package testsuite

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/internal/markdown/markdowntest"
)

var markdownFirstCells = regexp.MustCompile(`(?s)<tr>\s*<td>(.*?)</td>\s*<td>(.*?)</td>`)

// A run's Markdown renders as the totals, then what did not pass, the worst first: the file that
// could not run, the case that could not run, the failed cases; then every failure, folded.
func TestWriteMarkdown(t *testing.T) {
	var cases []*CaseReport
	for i := range 30 {
		cases = append(cases, &CaseReport{Name: fmt.Sprintf("case %d | piped", i), Line: 10 + i, Failures: []string{"admitted, want rejected", "code 0, want 422"}})
	}
	cases = append(cases, &CaseReport{Name: "broken", Line: 90, Error: "object: open missing.yaml: no such file"}, &CaseReport{Name: "fine", Line: 95, Passed: true})
	reports := []*Report{
		NewReport("", "a/admit-test.yaml", cases),
		{File: "b/admit-test.yaml", Error: "b/admit-test.yaml: webhooks: open hooks.yaml: no such file"},
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, reports); err != nil {
		t.Fatal(err)
	}
	html := markdowntest.Render(t, md.String())
	for _, want := range []string{
		"<h3>❌ admit test</h3>",
		"<p>32 cases in 2 files: 1 passed, 30 failed, 2 could not run</p>",
		"<td>case 0 | piped</td>",
		"<td>admitted, want rejected (and 1 other failure)</td>",
		"<em>and 7 more cases that did not pass</em>",
		"<details><summary>The failures in full</summary>",
		"<li>code 0, want 422</li>",
		"<em>and 5 more failed cases</em>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendered report lacks %q:\n%s", want, html)
		}
	}
	var firsts []string
	for _, m := range markdownFirstCells.FindAllStringSubmatch(html, -1) {
		firsts = append(firsts, m[1]+" "+m[2])
	}
	want := []string{"<strong>could not run</strong> <code>b/admit-test.yaml</code>", "<strong>could not run</strong> <code>a/admit-test.yaml:90</code>"}
	for i := range 23 {
		want = append(want, fmt.Sprintf("<strong>failed</strong> <code>a/admit-test.yaml:%d</code>", 10+i))
	}
	if diff := cmp.Diff(want, firsts); diff != "" {
		t.Errorf("the table's rows (-want +got):\n%s", diff)
	}
}

// A run where every case passed is its totals alone.
func TestWriteMarkdownAllPassed(t *testing.T) {
	var md bytes.Buffer
	if err := WriteMarkdown(&md, []*Report{NewReport("", "admit-test.yaml", []*CaseReport{{Name: "fine", Passed: true}})}); err != nil {
		t.Fatal(err)
	}
	if got, want := markdowntest.Render(t, md.String()), "<h3>✅ admit test</h3>\n<p>1 case in 1 file: 1 passed, 0 failed</p>\n"; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
}

// With coverage measured, the Markdown says the share of units hit and, folded, the items that
// miss some, with the units they miss.
func TestWriteMarkdownCoverage(t *testing.T) {
	coverage := &Coverage{Items: []*CoverageItem{
		{Kind: KindValidatingPolicy, Name: "replica-limit", Units: []*CoverageUnit{
			{Part: partValidation, Index: 0, Branch: "held", Hit: true}, {Part: partValidation, Index: 0, Branch: "failed"},
		}},
		{Kind: KindValidatingWebhook, Name: "a.example.com", Units: []*CoverageUnit{{Part: partWebhook, Branch: "called", Hit: true}}},
	}}
	coverage.sum()
	var md bytes.Buffer
	if err := WriteMarkdown(&md, []*Report{withCoverage(NewReport("", "admit-test.yaml", []*CaseReport{{Name: "fine", Passed: true}}), coverage)}); err != nil {
		t.Fatal(err)
	}
	html := markdowntest.Render(t, md.String())
	for _, want := range []string{
		"<p><strong>Coverage</strong>: 67% (2 of 3 units hit).</p>",
		"<details><summary>What the cases do not reach</summary>",
		"<td>replica-limit</td>\n<td>ValidatingAdmissionPolicy</td>\n<td>1 of 2</td>\n<td>validation[0] failed</td>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the rendered report lacks %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, "a.example.com") {
		t.Errorf("an item whose units are all hit is listed:\n%s", html)
	}
}
