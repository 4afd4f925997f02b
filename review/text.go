package review

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/words"
	"github.com/admitkit/admit/patch"
)

// ANSI colours for the diff and the decision.
const (
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiBold  = "\x1b[1m"
	ansiReset = "\x1b[0m"
)

// TextOptions shape the text of a review.
type TextOptions struct {
	// Color paints the decision and the diff with ANSI colours.
	Color bool
	// Verbose lists every step of the chain (also skipped webhooks and plugins that changed
	// nothing) and the whole change from the submitted object to the stored one.
	Verbose bool
}

// paint colours s with code when opts say so.
func (opts TextOptions) paint(code, s string) string {
	if !opts.Color {
		return s
	}
	return code + s + ansiReset
}

// WriteText writes one object's review for people: the steps of the chain, the decision,
// warnings, what failed open, and what admission changed.
func (o *Outcome) WriteText(w io.Writer, opts TextOptions) error {
	req, res := o.Request, o.Result
	paint := opts.paint
	if err := printSteps(w, res, opts.Verbose); err != nil {
		return err
	}
	fmt.Fprintln(w)

	subject := fmt.Sprintf("%s %s", req.Operation, req.Kind.Kind)
	if name := o.Name(); name != "" {
		subject += " " + name
	}
	if req.DryRun {
		subject += " (dry run)"
	}
	if res.Allowed {
		fmt.Fprintf(w, "%s: %s\n", paint(ansiBold+ansiGreen, "ADMITTED"), subject)
	} else {
		fmt.Fprintf(w, "%s: %s (%d %s)\n  %s\n", paint(ansiBold+ansiRed, "REJECTED"), subject, res.Status.Code, res.Status.Reason, res.Status.Message)
		for _, cause := range extraCauses(res.Status) {
			fmt.Fprintf(w, "  - %s\n", cause)
		}
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, warning := range res.Warnings {
			fmt.Fprintf(w, "  - %s\n", warning)
		}
	}
	if failedOpen := failedOpen(res); len(failedOpen) > 0 {
		fmt.Fprintln(w, "\nFailed open (failurePolicy Ignore: admitted without them):")
		for _, h := range failedOpen {
			fmt.Fprintf(w, "  - %s: %s\n", h.Name, h.Reason)
		}
	}
	if err := printChange(w, "Changes made by admission", res.Decoded, res.Mutated, paint); err != nil {
		return err
	}
	if opts.Verbose {
		return printChange(w, "From the submitted object to the admitted one", req.Object, res.Object, paint)
	}
	return nil
}

// failedOpen are the rows of the calls that failed and that failurePolicy Ignore admitted
// without.
func failedOpen(res *engine.Result) []engine.Row {
	var out []engine.Row
	for _, h := range res.Rows {
		if h.Outcome == engine.OutcomeFailedOpen {
			out = append(out, h)
		}
	}
	return out
}

// printSteps prints the chain's steps as a table. Without verbose, webhooks that were not
// called and plugins that neither changed nor rejected anything are counted, not listed.
func printSteps(w io.Writer, res *engine.Result, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tTYPE\tROUND\tOUTCOME\tDURATION\tDETAIL")
	shown, skippedHooks, skippedPolicies, quietPlugins := 0, 0, 0, 0
	for _, h := range res.Rows {
		webhook := h.Type.IsWebhook()
		// Webhooks and admission policies are the cluster's own: listed when they ran.
		configured := webhook || h.Binding != ""
		quiet := h.Outcome == engine.OutcomeSkipped || (!configured && h.Outcome == engine.OutcomeAllowed)
		if quiet && !verbose {
			switch {
			case webhook:
				skippedHooks++
			case configured:
				skippedPolicies++
			default:
				quietPlugins++
			}
			continue
		}
		duration := "-"
		if h.Outcome != engine.OutcomeSkipped {
			duration = h.Duration.Round(10 * time.Microsecond).String()
		}
		typ := string(h.Type)
		switch {
		case webhook:
			typ += " webhook"
		case h.Type == engine.TypeAdmissionPlugin:
			typ = string(h.Phase) + " plugin"
		}
		name := h.Name
		if h.Binding != "" {
			name += " (" + h.Binding + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", name, typ, h.Round, h.Outcome, duration, detail(h))
		shown++
	}
	if shown == 0 {
		fmt.Fprintln(tw, "(nothing ran)\t\t\t\t\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var notes []string
	if skippedHooks > 0 {
		notes = append(notes, words.Plural(skippedHooks, "webhook", "webhooks")+" not called")
	}
	if skippedPolicies > 0 {
		notes = append(notes, words.Plural(skippedPolicies, "policy binding", "policy bindings")+" not matched")
	}
	if quietPlugins > 0 {
		notes = append(notes, words.Plural(quietPlugins, "built-in step", "built-in steps")+" changed nothing")
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "(%s; -v lists every step)\n", strings.Join(notes, ", "))
	}
	return nil
}

// extraCauses are the causes of a rejection that its message does not already say.
func extraCauses(status *metav1.Status) []string {
	if status.Details == nil {
		return nil
	}
	var out []string
	for _, c := range status.Details.Causes {
		text := c.Message
		if c.Field != "" {
			text = c.Field + ": " + c.Message
		}
		if strings.Contains(status.Message, text) {
			continue
		}
		out = append(out, text)
	}
	return out
}

// printChange prints a unified diff of two objects as YAML under a title, nothing when they are
// equal.
func printChange(w io.Writer, title string, from, to json.RawMessage, paint func(code, s string) string) error {
	if len(from) == 0 || len(to) == 0 {
		return nil
	}
	ops, err := patch.Diff(from, to)
	if err != nil || len(ops) == 0 {
		return err
	}
	before, err := yaml.JSONToYAML(from)
	if err != nil {
		return err
	}
	after, err := yaml.JSONToYAML(to)
	if err != nil {
		return err
	}
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(before)), B: difflib.SplitLines(string(after)),
		FromFile: "before", ToFile: "after", Context: 3,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s (%s):\n", title, words.Plural(len(ops), "patch operation", "patch operations"))
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
func detail(h engine.Row) string {
	s := strings.Join(strings.Fields(h.Reason), " ")
	if h.Outcome == engine.OutcomePatched && s == "" {
		var ops []json.RawMessage
		if json.Unmarshal(h.Patch, &ops) == nil {
			s = words.Plural(len(ops), "patch operation", "patch operations")
		}
	}
	if r := []rune(s); len(r) > detailWidth {
		s = string(r[:detailWidth-1]) + "…"
	}
	return s
}

// counts are the decisions of several reviews.
type counts struct{ admitted, rejected, failed, skipped, warned, open int }

func (c *counts) add(r *Outcome) {
	switch {
	case r.Err != nil:
		c.failed++
	case r.Skipped != "":
		c.skipped++
	case r.Result.Allowed:
		c.admitted++
		if len(r.Result.Warnings) > 0 {
			c.warned++
		}
		if len(failedOpen(r.Result)) > 0 {
			c.open++
		}
	default:
		c.rejected++
	}
}

// String is the summary line of n reviews; detailed adds the admissions with warnings and with
// webhooks that failed open.
func (c counts) String(n int, detailed bool) string {
	summary := fmt.Sprintf("%s: %d admitted", words.Plural(n, "object", "objects"), c.admitted)
	if detailed {
		summary += fmt.Sprintf(" (%d with warnings", c.warned)
		if c.open > 0 {
			summary += fmt.Sprintf(", %d with webhooks or policies that failed open", c.open)
		}
		summary += ")"
	}
	summary += fmt.Sprintf(", %d rejected", c.rejected)
	if c.skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", c.skipped)
	}
	if c.failed > 0 {
		summary += fmt.Sprintf(", %d not reviewed", c.failed)
	}
	return summary
}

// qualifiedName is namespace/name, or the name of a cluster-scoped object.
func qualifiedName(r *Outcome) string {
	req, name := r.Request, r.Name()
	if req.Namespace != "" && !(req.Resource.Group == "" && req.Resource.Resource == "namespaces") {
		return req.Namespace + "/" + name
	}
	return name
}

// summaryLine is one object's line of a summary, its columns separated by tabs; no column holds
// a tab or a line break (summaryCell).
func summaryLine(r *Outcome, paint func(code, s string) string) string {
	cells := summaryRow(r, paint)
	for i, c := range cells {
		cells[i] = summaryCell(c)
	}
	return strings.Join(cells[:], "\t")
}

// summaryRow is one object's columns in a summary.
func summaryRow(r *Outcome, paint func(code, s string) string) [5]string {
	if r.Err != nil || r.Skipped != "" {
		object := ""
		if r.Object != nil {
			object = r.Object.GetKind() + " " + r.Object.GetName()
		}
		if r.Err != nil {
			return [5]string{paint(ansiBold+ansiRed, "NOT REVIEWED"), "", object, r.Source, words.OneLine(r.Err.Error())}
		}
		return [5]string{"skipped", "", object, r.Source, words.OneLine(r.Skipped)}
	}
	object := r.Request.Kind.Kind + " " + qualifiedName(r)
	if !r.Result.Allowed {
		return [5]string{paint(ansiBold+ansiRed, "REJECTED"), string(r.Request.Operation), object, r.Source,
			fmt.Sprintf("%d %s", r.Result.Status.Code, words.OneLine(r.Result.Status.Message))}
	}
	detail := ""
	if n := len(r.Result.Warnings); n > 0 {
		detail = words.Plural(n, "warning", "warnings") + ": " + words.OneLine(r.Result.Warnings[0])
	}
	if rows := failedOpen(r.Result); len(rows) > 0 {
		// Admitted without a webhook's answer: what a reader of one line must see first.
		detail = fmt.Sprintf("%s failed open: %s: %s", words.Plural(len(rows), callNoun(rows[0].Type), callNoun(rows[0].Type)+"s"), rows[0].Name, words.OneLine(rows[0].Reason))
	}
	return [5]string{paint(ansiGreen, "admitted"), string(r.Request.Operation), object, r.Source, detail}
}

// callNoun names what a failed-open row is: a webhook, or an admission policy's binding.
func callNoun(t engine.RowType) string {
	if t.IsPolicy() {
		return "policy"
	}
	return "webhook"
}
