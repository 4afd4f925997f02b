package review

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/engine"
)

// tabwriterSummary is the summary of outcomes as text/tabwriter lays it out: its lines (the
// cells made safe by summaryCell, as summaryLine makes them) in columns padded by two spaces,
// then the totals.
func tabwriterSummary(t *testing.T, outcomes []*Outcome, opts TextOptions) string {
	t.Helper()
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DECISION\tOPERATION\tOBJECT\tSOURCE\tDETAIL")
	var c counts
	for _, r := range outcomes {
		c.add(r)
		fmt.Fprintln(tw, summaryLine(r, opts.paint))
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "\n%s\n", c.String(len(outcomes), true))
	return b.String()
}

// failedOpenOutcome is an admitted Pod whose webhook failed open.
func failedOpenOutcome(source string) *Outcome {
	o := rejectedOutcome(source, "api", "")
	o.Result = &engine.Result{Allowed: true, Rows: []engine.Row{{
		Configuration: "quickstart", Name: "sidecar.quickstart.admit.dev", Type: engine.TypeMutatingWebhook,
		Outcome: engine.OutcomeFailedOpen, Reason: "connection refused",
	}}}
	return o
}

// summaryOutcomes are outcomes of every decision, with names and sources that hold what a
// table's cell must not: tabs, line breaks, vertical tabs, form feeds, bytes that are not UTF-8
// (the last the escape byte of text/tabwriter), and wide and combining characters.
func summaryOutcomes() []*Outcome {
	return []*Outcome{
		admittedOutcome("build.yaml:1", "shop", "settings", "a"),
		admittedOutcome("build.yaml:5", "shop", "warned", "a", "deprecated\tfield", longWarning),
		rejectedOutcome("build.yaml:9", "api", "pods \"api\" is forbidden:\nviolates PodSecurity"),
		unreviewedOutcome("build.yaml:20", "Gadget", "g", "build.yaml:20: no resource\tfor kind", false),
		unreviewedOutcome("build.yaml:24", "Gadget", "h", "no resource for kind \"Gadget\"", true),
		failedOpenOutcome("build.yaml:30"),
		admittedOutcome("café/über.yaml:3", "équipe", "größe-日本語", "x"),
		admittedOutcome("e\u0301t\u0301e\u0301.yaml:1", "shop", "combining-é", "x"),
		admittedOutcome("tab\there.yaml:1", "shop", "t", "x"),
		admittedOutcome("new\nline.yaml:1", "shop", "n\nl", "x"),
		admittedOutcome("cr\r\nlf.yaml:1", "shop", "cr", "x"),
		admittedOutcome("vertical\vtab.yaml:1", "shop", "v\vt", "x"),
		admittedOutcome("form\ffeed.yaml:1", "shop", "f\ff", "x"),
		admittedOutcome("bad\xffutf8\xc3.yaml:1", "shop", "b\xfe", "x"),
		rejectedOutcome("a-rather-long-directory-name/with/several/levels/deployment.yaml:120", "api", "short"),
	}
}

// A SummaryWriter lays the summary out as text/tabwriter does, whatever its cells hold, with
// colour or without.
func TestSummaryWriterIsTabwriter(t *testing.T) {
	all := summaryOutcomes()
	tests := []struct {
		name     string
		outcomes []*Outcome
	}{
		{name: "none"},
		{name: "one admitted", outcomes: all[:1]},
		{name: "one not reviewed", outcomes: all[3:4]},
		{name: "every decision", outcomes: all[:6]},
		{name: "non-ASCII names", outcomes: all[6:8]},
		{name: "sources and names with control characters", outcomes: all[8:14]},
		{name: "all", outcomes: all},
	}
	for _, tt := range tests {
		for _, color := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/color=%v", tt.name, color), func(t *testing.T) {
				opts := TextOptions{Color: color}
				var b bytes.Buffer
				if err := WriteSummary(&b, tt.outcomes, opts); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tabwriterSummary(t, tt.outcomes, opts), b.String()); diff != "" {
					t.Errorf("(-tabwriter +SummaryWriter):\n%s", diff)
				}
				// Every object has a line of its own, and nothing else makes one.
				if got, want := strings.Count(b.String(), "\n"), len(tt.outcomes)+3; got != want {
					t.Errorf("%d lines, want %d:\n%s", got, want, b.String())
				}
			})
		}
	}
}

// summaryCell makes a value one cell: its tabs and line breaks spaces, its bytes that are not
// UTF-8 U+FFFD.
func TestSummaryCell(t *testing.T) {
	for in, want := range map[string]string{
		"plain":           "plain",
		"a\tb\nc\rd\ve\f": "a b c d e ",
		"\xffbad\xc3":     "\uFFFDbad\uFFFD",
		"日本語 é":           "日本語 é",
	} {
		if got := summaryCell(in); got != want {
			t.Errorf("summaryCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// A summary larger than the spool's memory waits in a temporary file: written the same, and the
// file removed by Close, or by Discard when the summary is not written.
func TestSummaryWriterSpoolsToDisk(t *testing.T) {
	outcomes := summaryOutcomes()
	for _, limit := range []int{0, 100, 1000} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			want := tabwriterSummary(t, outcomes, TextOptions{})

			var b bytes.Buffer
			sw := NewSummaryWriter(&b, TextOptions{})
			sw.lines.limit = limit
			file := writeSpooled(t, sw, outcomes)
			if err := sw.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, b.String()); diff != "" {
				t.Errorf("(-tabwriter +spooled):\n%s", diff)
			}
			if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("after Close, the spool %s: %v, want it removed", file, err)
			}

			b.Reset()
			sw = NewSummaryWriter(&b, TextOptions{})
			sw.lines.limit = limit
			file = writeSpooled(t, sw, outcomes)
			sw.Discard()
			if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) || b.Len() != 0 {
				t.Errorf("after Discard, the spool %s: %v, and %d bytes written; want it removed and nothing written", file, err, b.Len())
			}
		})
	}
}

// writeSpooled writes outcomes to sw and returns its spool's file, which must exist by then.
func writeSpooled(t *testing.T, sw *SummaryWriter, outcomes []*Outcome) string {
	t.Helper()
	for _, o := range outcomes {
		if err := sw.Write(o); err != nil {
			t.Fatal(err)
		}
	}
	if sw.lines.file == nil {
		t.Fatalf("the summary is in memory, not in a file")
	}
	file := sw.lines.file.Name()
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	return file
}

// A spool under its limit stays in memory: no file is made.
func TestSpoolInMemory(t *testing.T) {
	var b bytes.Buffer
	sw := NewSummaryWriter(&b, TextOptions{})
	for _, o := range summaryOutcomes() {
		if err := sw.Write(o); err != nil {
			t.Fatal(err)
		}
	}
	if sw.lines.file != nil || sw.lines.limit != spoolMemory {
		t.Errorf("spool: file %v, limit %d; want none and %d", sw.lines.file, sw.lines.limit, spoolMemory)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
}
