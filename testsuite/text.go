package testsuite

import (
	"bufio"
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
	out := bufio.NewWriter(w)
	cases := 0
	for _, s := range r.Suites {
		title := s.File
		if s.Name != "" && s.Name != s.File {
			title += ": " + s.Name
		}
		fmt.Fprintln(out, title)
		if s.Error != "" {
			fmt.Fprintf(out, "  ERROR %s\n", indentLines(s.Error, "        "))
		}
		err := s.EachCase(func(c *CaseReport) error {
			cases++
			writeCaseText(out, c)
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.File, err)
		}
		if s.Updated {
			fmt.Fprintf(out, "  expectations rewritten in %s\n", s.File)
		}
	}
	fmt.Fprintf(out, "%s in %s: %d passed, %d failed", words.Plural(cases, "case", "cases"), words.Plural(len(r.Suites), "file", "files"), r.Passed, r.Failed)
	if r.Errors > 0 {
		fmt.Fprintf(out, ", %d could not run", r.Errors)
	}
	out.WriteString("\n")
	if err := out.Flush(); err != nil {
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
func writeCaseText(b *bufio.Writer, c *CaseReport) {
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
// test case per case, and a file that could not run as a case in error. Each file's cases are
// read twice, for the totals that come first and then for the cases.
func WriteJUnit(w io.Writer, r *Results) error {
	totals := make([]junit.Totals, len(r.Suites))
	var total junit.Totals
	for i, s := range r.Suites {
		if err := eachJUnitCase(s, func(c junit.Case) error { totals[i].Add(c); return nil }); err != nil {
			return err
		}
		total.Sum(totals[i])
	}
	out := bufio.NewWriter(w)
	st, err := junit.NewStream(out, total)
	if err != nil {
		return err
	}
	for i, s := range r.Suites {
		if err := st.StartSuite(s.Name, totals[i]); err != nil {
			return err
		}
		if err := eachJUnitCase(s, st.Case); err != nil {
			return err
		}
		if err := st.EndSuite(); err != nil {
			return err
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	return out.Flush()
}

// eachJUnitCase calls fn with each JUnit case of a file: the file's error, then its cases.
func eachJUnitCase(s *Report, fn func(junit.Case) error) error {
	if s.Error != "" {
		if err := fn(junit.Case{Name: "(the test file)", Class: s.File, Error: s.Error}); err != nil {
			return err
		}
	}
	err := s.EachCase(func(c *CaseReport) error {
		return fn(junit.Case{Name: c.Name, Class: s.File, Duration: c.Took, Failures: c.Failures, Error: c.Error})
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	return nil
}
