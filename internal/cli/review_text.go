package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"golang.org/x/term"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/dispatch"
)

// ANSI colours for the diff and the decision.
const (
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiBold  = "\x1b[1m"
	ansiReset = "\x1b[0m"
)

// useColor decides whether to colour: "always", "never", or "auto" (a terminal, and NO_COLOR unset).
func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printReviewText prints the webhook table, the decision, the warnings and the diff.
func printReviewText(w io.Writer, req *dispatch.Request, res *dispatch.Result, color bool) error {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WEBHOOK\tCONFIGURATION\tTYPE\tROUND\tOUTCOME\tDURATION\tDETAIL")
	for _, h := range res.Webhooks {
		duration := "-"
		if h.Outcome != dispatch.OutcomeSkipped {
			duration = h.Duration.Round(10 * time.Microsecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", h.Name, h.Configuration, h.Type, h.Round, h.Outcome, duration, detail(h))
	}
	if len(res.Webhooks) == 0 {
		fmt.Fprintln(tw, "(no webhooks configured)\t\t\t\t\t\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)

	subject := fmt.Sprintf("%s %s", req.Operation, req.Kind.Kind)
	if name := req.Name; name != "" {
		subject += " " + name
	}
	if res.Allowed {
		fmt.Fprintf(w, "%s: %s\n", paint(ansiBold+ansiGreen, "ADMITTED"), subject)
	} else {
		fmt.Fprintf(w, "%s: %s (%d %s)\n  %s\n", paint(ansiBold+ansiRed, "REJECTED"), subject, res.Status.Code, res.Status.Reason, res.Status.Message)
		if res.Status.Details != nil {
			for _, c := range res.Status.Details.Causes {
				fmt.Fprintf(w, "  - %s: %s\n", c.Field, c.Message)
			}
		}
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, warning := range res.Warnings {
			fmt.Fprintf(w, "  - %s\n", warning)
		}
	}
	if len(res.Patch) == 0 {
		return nil
	}
	before, err := yaml.JSONToYAML(req.Object)
	if err != nil {
		return err
	}
	after, err := yaml.JSONToYAML(res.Object)
	if err != nil {
		return err
	}
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(before)), B: difflib.SplitLines(string(after)),
		FromFile: "submitted", ToFile: "admitted", Context: 3,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nChanges (%d patch operations):\n", len(res.Patch))
	for _, line := range strings.SplitAfter(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			line = paint(ansiBold, strings.TrimSuffix(line, "\n")) + "\n"
		case strings.HasPrefix(line, "+"):
			line = paint(ansiGreen, strings.TrimSuffix(line, "\n")) + "\n"
		case strings.HasPrefix(line, "-"):
			line = paint(ansiRed, strings.TrimSuffix(line, "\n")) + "\n"
		case strings.HasPrefix(line, "@@"):
			line = paint(ansiCyan, strings.TrimSuffix(line, "\n")) + "\n"
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	return nil
}

// detailWidth keeps the table readable; the full message of a rejection is printed below it.
const detailWidth = 90

// detail is the table's last column: why a webhook was skipped, what it returned, or its error.
func detail(h dispatch.WebhookResult) string {
	s := strings.Join(strings.Fields(h.Reason), " ")
	if h.Outcome == dispatch.OutcomePatched && s == "" {
		var ops []json.RawMessage
		if json.Unmarshal(h.Patch, &ops) == nil {
			s = fmt.Sprintf("%d patch operations", len(ops))
		}
	}
	if r := []rune(s); len(r) > detailWidth {
		s = string(r[:detailWidth-1]) + "…"
	}
	return s
}

// printReviewsText prints each object's review under a heading naming it, then a summary line.
func printReviewsText(w io.Writer, reviews []*reviewed, color bool) error {
	admitted, rejected, failed := 0, 0, 0
	for i, r := range reviews {
		if i > 0 {
			fmt.Fprintln(w)
		}
		heading := r.source
		if r.request != nil {
			heading = fmt.Sprintf("%s %s %s (%s)", r.request.Operation, r.request.Kind.Kind, qualifiedName(r.request), r.source)
		}
		fmt.Fprintf(w, "=== %s\n", heading)
		if r.err != nil {
			failed++
			fmt.Fprintf(w, "NOT REVIEWED: %v\n", r.err)
			continue
		}
		if r.result.Allowed {
			admitted++
		} else {
			rejected++
		}
		if err := printReviewText(w, r.request, r.result, color); err != nil {
			return err
		}
	}
	summary := fmt.Sprintf("%d objects: %d admitted, %d rejected", len(reviews), admitted, rejected)
	if failed > 0 {
		summary += fmt.Sprintf(", %d not reviewed", failed)
	}
	_, err := fmt.Fprintf(w, "\n%s\n", summary)
	return err
}

// qualifiedName is namespace/name, or the name of a cluster-scoped object.
func qualifiedName(req *dispatch.Request) string {
	name := requestName(req)
	if req.Namespace != "" && !(req.Resource.Group == "" && req.Resource.Resource == "namespaces") {
		return req.Namespace + "/" + name
	}
	return name
}
