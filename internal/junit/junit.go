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

// Totals are what a group of cases adds up to, as a <testsuite> or <testsuites> element's
// attributes say it.
type Totals struct {
	Tests, Failures, Errors int
	Time                    time.Duration
}

// Add counts c.
func (t *Totals) Add(c Case) {
	t.Tests++
	t.Time += c.Duration
	switch {
	case c.Error != "":
		t.Errors++
	case len(c.Failures) > 0:
		t.Failures++
	}
}

// Sum adds a group's totals.
func (t *Totals) Sum(o Totals) {
	t.Tests, t.Failures, t.Errors, t.Time = t.Tests+o.Tests, t.Failures+o.Failures, t.Errors+o.Errors, t.Time+o.Time
}

// attrs are the totals as attributes, after a suite's name.
func (t Totals) attrs(name ...string) []xml.Attr {
	var out []xml.Attr
	for _, n := range name {
		out = append(out, xml.Attr{Name: xml.Name{Local: "name"}, Value: n})
	}
	return append(out,
		xml.Attr{Name: xml.Name{Local: "tests"}, Value: fmt.Sprint(t.Tests)},
		xml.Attr{Name: xml.Name{Local: "failures"}, Value: fmt.Sprint(t.Failures)},
		xml.Attr{Name: xml.Name{Local: "errors"}, Value: fmt.Sprint(t.Errors)},
		xml.Attr{Name: xml.Name{Local: "time"}, Value: seconds(t.Time)})
}

// Write writes suites as one <testsuites> document.
func Write(w io.Writer, suites []Suite) error {
	var total Totals
	totals := make([]Totals, len(suites))
	for i, s := range suites {
		for _, c := range s.Cases {
			totals[i].Add(c)
		}
		total.Sum(totals[i])
	}
	st, err := NewStream(w, total)
	if err != nil {
		return err
	}
	for i, s := range suites {
		if err := st.StartSuite(s.Name, totals[i]); err != nil {
			return err
		}
		for _, c := range s.Cases {
			if err := st.Case(c); err != nil {
				return err
			}
		}
		if err := st.EndSuite(); err != nil {
			return err
		}
	}
	return st.Close()
}

// Stream writes one <testsuites> document a case at a time, for results too many to hold: the
// totals of the whole and of each suite come first, as the attributes that open them.
type Stream struct {
	w   io.Writer
	enc *xml.Encoder
}

// NewStream starts the document of cases adding up to total.
func NewStream(w io.Writer, total Totals) (*Stream, error) {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return nil, err
	}
	s := &Stream{w: w, enc: xml.NewEncoder(w)}
	s.enc.Indent("", "  ")
	return s, s.token(xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: total.attrs()})
}

// StartSuite opens a suite whose cases add up to t.
func (s *Stream) StartSuite(name string, t Totals) error {
	return s.token(xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: t.attrs(name)})
}

// Case writes a case of the open suite.
func (s *Stream) Case(c Case) error {
	xc := xmlCase{Name: c.Name, Classname: c.Class, Time: seconds(c.Duration)}
	switch {
	case c.Error != "":
		xc.Error = &xmlProblem{Message: c.Error, Text: c.Error}
	case len(c.Failures) > 0:
		text := ""
		for _, f := range c.Failures {
			text += f + "\n"
		}
		xc.Failure = &xmlProblem{Message: c.Failures[0], Text: text}
	}
	if err := s.enc.EncodeElement(xc, xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	return nil
}

// EndSuite closes the open suite.
func (s *Stream) EndSuite() error { return s.token(xml.EndElement{Name: xml.Name{Local: "testsuite"}}) }

// Close ends the document.
func (s *Stream) Close() error {
	if err := s.token(xml.EndElement{Name: xml.Name{Local: "testsuites"}}); err != nil {
		return err
	}
	if err := s.enc.Flush(); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	_, err := io.WriteString(s.w, "\n")
	return err
}

func (s *Stream) token(t xml.Token) error {
	if err := s.enc.EncodeToken(t); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	return nil
}
