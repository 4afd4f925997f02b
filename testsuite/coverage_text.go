package testsuite

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// MergeCoverage adds up the coverage of several files' runs: an item two files share (a
// configuration file both name) is hit where either hit it. Nil coverages are left out; the
// result is nil when all are.
func MergeCoverage(cs ...*Coverage) *Coverage {
	var out *Coverage
	index := map[string]*CoverageItem{}
	for _, c := range cs {
		if c == nil {
			continue
		}
		if out == nil {
			out = &Coverage{}
		}
		for _, item := range c.Items {
			key := strings.Join([]string{item.File, item.Kind, item.Configuration, item.Name}, "\x00")
			if have, ok := index[key]; ok && len(have.Units) == len(item.Units) {
				have.merge(item)
				continue
			}
			copied := item.copy()
			index[key] = copied
			out.Items = append(out.Items, copied)
		}
	}
	if out != nil {
		out.sum()
	}
	return out
}

func (item *CoverageItem) copy() *CoverageItem {
	c := *item
	c.Outcomes = maps.Clone(item.Outcomes)
	c.Cases = slices.Clone(item.Cases)
	c.Units = make([]*CoverageUnit, len(item.Units))
	for i, u := range item.Units {
		copied := *u
		copied.Cases = slices.Clone(u.Cases)
		c.Units[i] = &copied
	}
	return &c
}

func (item *CoverageItem) merge(other *CoverageItem) {
	item.Count += other.Count
	item.Cases = appendCases(item.Cases, other.Cases)
	for o, n := range other.Outcomes {
		item.count(o)
		item.Outcomes[o] += n - 1 // count added one
	}
	for i, u := range other.Units {
		have := item.Units[i]
		have.Hit = have.Hit || u.Hit
		have.Count += u.Count
		have.Cases = appendCases(have.Cases, u.Cases)
	}
}

// appendCases adds names to the first cases, up to their number.
func appendCases(cases, names []string) []string {
	for _, name := range names {
		if len(cases) < coverageCasesPerUnit {
			cases = append(cases, name)
		}
	}
	return cases
}

// hits counts the item's units hit.
func (item *CoverageItem) hits() int {
	n := 0
	for _, u := range item.Units {
		if u.Hit {
			n++
		}
	}
	return n
}

// label names the item: a webhook with its configuration, a binding with its policy.
func (item *CoverageItem) label() string {
	switch {
	case item.Configuration == "":
		return item.Name
	case item.Kind == KindMutatingWebhook || item.Kind == KindValidatingWebhook:
		return item.Name + " (" + item.Configuration + ")"
	}
	return item.Name + " (of " + item.Configuration + ")"
}

// casesText names the first cases, and how many others there are.
func casesText(names []string, count int) string {
	if len(names) == 0 {
		return "-"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	s := strings.Join(quoted, ", ")
	if count > len(names) {
		s += fmt.Sprintf(" and %d more", count-len(names))
	}
	return s
}

// WriteText writes the coverage as a table: each item, its kind, its units hit of its units and
// the cases that hit them; under an item not wholly covered, each unit it misses.
func (c *Coverage) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "coverage: %d of %d units (%s%%)\n", c.Hit, c.Units, strconv.FormatFloat(c.Percent, 'f', 1, 64))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ITEM\tKIND\tUNITS\tCASES")
	for _, item := range c.Items {
		fmt.Fprintf(tw, "  %s\t%s\t%d/%d\t%s\n", item.label(), item.Kind, item.hits(), len(item.Units), casesText(item.Cases, item.Count))
		for _, u := range item.Units {
			if !u.Hit {
				fmt.Fprintf(tw, "    not %s\t\t\t\n", u)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The lines of missed units end in their empty cells' padding.
	lines := strings.SplitAfter(b.String(), "\n")
	for i, line := range lines {
		if trimmed := strings.TrimRight(line, " \n"); trimmed != strings.TrimSuffix(line, "\n") {
			lines[i] = trimmed + "\n"
		}
	}
	_, err := io.WriteString(w, strings.Join(lines, ""))
	return err
}
