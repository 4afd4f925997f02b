package testsuite

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/admitkit/admit/internal/junit"
	"github.com/admitkit/admit/internal/words"
)

// WriteText writes the results for people: each file, each case's verdict with the failures of
// those that failed, the counts, and the coverage when there is one.
func WriteText(w io.Writer, r *Results) error {
	var b strings.Builder
	cases := 0
	for _, s := range r.Suites {
		title := s.File
		if s.Name != "" && s.Name != s.File {
			title += ": " + s.Name
		}
		fmt.Fprintln(&b, title)
		if s.Error != "" {
			fmt.Fprintf(&b, "  ERROR %s\n", indentLines(s.Error, "        "))
		}
		for _, c := range s.Cases {
			cases++
			writeCaseText(&b, c)
		}
		if s.Updated {
			fmt.Fprintf(&b, "  expectations rewritten in %s\n", s.File)
		}
	}
	fmt.Fprintf(&b, "%s in %s: %d passed, %d failed", words.Plural(cases, "case", "cases"), words.Plural(len(r.Suites), "file", "files"), r.Passed, r.Failed)
	if r.Errors > 0 {
		fmt.Fprintf(&b, ", %d could not run", r.Errors)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if r.Coverage == nil {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return r.Coverage.WriteText(w)
}

// writeCaseText writes one case's verdict line, and the failures of one that failed.
func writeCaseText(b *strings.Builder, c *CaseReport) {
	switch {
	case c.Error != "":
		fmt.Fprintf(b, "  ERROR %s\n        %s\n", c.Name, indentLines(c.Error, "        "))
	case c.Updated:
		fmt.Fprintf(b, "  UPDATED %s (%s)\n", c.Name, readableDuration(c.Took))
	case c.Passed:
		fmt.Fprintf(b, "  ok    %s (%s)\n", c.Name, readableDuration(c.Took))
	default:
		fmt.Fprintf(b, "  FAIL  %s (%s)\n", c.Name, readableDuration(c.Took))
		for _, f := range c.Failures {
			fmt.Fprintf(b, "        %s\n", f)
		}
	}
}

func indentLines(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

// readableDuration rounds a case's duration for the text output.
func readableDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// WriteJUnit writes the results as JUnit XML, which CI systems read: a test suite per file, a
// test case per case, and a file that could not run as a case in error.
func WriteJUnit(w io.Writer, r *Results) error {
	var suites []junit.Suite
	for _, s := range r.Suites {
		js := junit.Suite{Name: s.Name}
		if s.Error != "" {
			js.Cases = append(js.Cases, junit.Case{Name: "(the test file)", Class: s.File, Error: s.Error})
		}
		for _, c := range s.Cases {
			js.Cases = append(js.Cases, junit.Case{Name: c.Name, Class: s.File, Duration: c.Took, Failures: c.Failures, Error: c.Error})
		}
		suites = append(suites, js)
	}
	return junit.Write(w, suites)
}
