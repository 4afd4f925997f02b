package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"
)

// Case is one test case's result.
type Case struct {
	Name string
	// Class groups cases; CI systems show it as the case's suite or file.
	Class    string
	Duration time.Duration
	// Failures are why the case failed; none means it passed.
	Failures []string
	// Error, when set, means the case could not run (bad input, an unreachable server).
	Error string
}

// Suite is a named group of cases.
type Suite struct {
	Name  string
	Cases []Case
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Errors   int       `xml:"errors,attr"`
	Time     string    `xml:"time,attr"`
	Cases    []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	Time      string      `xml:"time,attr"`
	Failure   *xmlProblem `xml:"failure,omitempty"`
	Error     *xmlProblem `xml:"error,omitempty"`
}

type xmlProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Write writes suites as one <testsuites> document.
func Write(w io.Writer, suites []Suite) error {
	doc := xmlSuites{}
	var total time.Duration
	for _, s := range suites {
		xs := xmlSuite{Name: s.Name}
		var suiteTime time.Duration
		for _, c := range s.Cases {
			xc := xmlCase{Name: c.Name, Classname: c.Class, Time: seconds(c.Duration)}
			switch {
			case c.Error != "":
				xc.Error = &xmlProblem{Message: c.Error, Text: c.Error}
				xs.Errors++
			case len(c.Failures) > 0:
				text := ""
				for _, f := range c.Failures {
					text += f + "\n"
				}
				xc.Failure = &xmlProblem{Message: c.Failures[0], Text: text}
				xs.Failures++
			}
			xs.Tests++
			suiteTime += c.Duration
			xs.Cases = append(xs.Cases, xc)
		}
		xs.Time = seconds(suiteTime)
		doc.Tests += xs.Tests
		doc.Failures += xs.Failures
		doc.Errors += xs.Errors
		total += suiteTime
		doc.Suites = append(doc.Suites, xs)
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
