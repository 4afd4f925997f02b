package lint

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// textWidth is where WriteText wraps messages and hints.
const textWidth = 100

// WriteText writes, for people, the findings that count at threshold (see AtLeast), grouped by
// configuration, each with its rule, field, webhook, message and hint; then a summary line that
// also counts the findings left out (suppressed or below threshold).
func WriteText(w io.Writer, findings []Finding, threshold Severity) error {
	out := bufio.NewWriter(w)
	shown := AtLeast(findings, threshold)
	group := ""
	for _, f := range shown {
		header := fmt.Sprintf("%s %q", f.Kind, f.Configuration)
		if loc := f.ConfigurationLocation(); loc != "" {
			header += "  " + loc
		}
		if header != group {
			if group != "" {
				fmt.Fprintln(out)
			}
			fmt.Fprintln(out, header)
			group = header
		}
		where := f.Field
		if f.Webhook != "" {
			where = strings.TrimSpace(fmt.Sprintf("%s (webhook %q)", f.Field, f.Webhook))
		}
		fmt.Fprintf(out, "  %-7s %s %s", f.Severity, f.Rule, f.Name)
		if where != "" {
			fmt.Fprintf(out, ": %s", where)
		}
		fmt.Fprintln(out)
		writeWrapped(out, "          ", f.Message)
		if f.Hint != "" {
			writeWrapped(out, "          ", "fix: "+f.Hint)
		}
	}
	if len(shown) > 0 {
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, summary(findings, shown, threshold))
	return out.Flush()
}

// summary counts what was shown by severity and what was left out.
func summary(all, shown []Finding, threshold Severity) string {
	counts := map[Severity]int{}
	for _, f := range shown {
		counts[f.Severity]++
	}
	var parts []string
	for _, s := range []Severity{Error, Warning, Info} {
		if counts[s] > 0 {
			parts = append(parts, plural(counts[s], s.String()))
		}
	}
	text := "no findings"
	if len(parts) > 0 {
		text = strings.Join(parts, ", ")
	}
	suppressed, below := 0, 0
	for _, f := range all {
		switch {
		case f.Suppressed != NotSuppressed:
			suppressed++
		case f.Severity < threshold:
			below++
		}
	}
	var left []string
	if suppressed > 0 {
		left = append(left, fmt.Sprintf("%d suppressed", suppressed))
	}
	if below > 0 {
		left = append(left, fmt.Sprintf("%d below %s", below, threshold))
	}
	if len(left) > 0 {
		text += " (" + strings.Join(left, ", ") + ")"
	}
	return text
}

// writeWrapped writes text in lines of at most textWidth columns, each starting with indent;
// words longer than a line are not broken.
func writeWrapped(w io.Writer, indent, text string) {
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > textWidth {
			fmt.Fprintln(w, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}

// plural counts nouns: "1 warning", "2 warnings".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
