package junit

import (
	"bytes"
	"encoding/xml"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	var buf bytes.Buffer
	err := Write(&buf, []Suite{{Name: "mirrors", Cases: []Case{
		{Name: "a pod is mirrored", Class: "examples/test/admit-test.yaml", Duration: 12 * time.Millisecond},
		{Name: "a <bad> & pod", Class: "examples/test/admit-test.yaml", Duration: 2 * time.Millisecond, Failures: []string{`admitted, want rejected`, `called none, want ["a"]`}},
		{Name: "unreachable", Class: "examples/test/admit-test.yaml", Error: "connection refused"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	want := xml.Header + `<testsuites tests="3" failures="1" errors="1" time="0.014">
  <testsuite name="mirrors" tests="3" failures="1" errors="1" time="0.014">
    <testcase name="a pod is mirrored" classname="examples/test/admit-test.yaml" time="0.012"></testcase>
    <testcase name="a &lt;bad&gt; &amp; pod" classname="examples/test/admit-test.yaml" time="0.002">
      <failure message="admitted, want rejected">admitted, want rejected&#xA;called none, want [&#34;a&#34;]&#xA;</failure>
    </testcase>
    <testcase name="unreachable" classname="examples/test/admit-test.yaml" time="0.000">
      <error message="connection refused">connection refused</error>
    </testcase>
  </testsuite>
</testsuites>
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("JUnit XML (-want +got):\n%s", diff)
	}
	// What CI systems do: parse it back.
	var parsed xmlSuites
	if err := xml.Unmarshal(buf.Bytes(), &parsed); err != nil {
		t.Fatalf("the output is not well-formed XML: %v", err)
	}
	if got := parsed.Suites[0].Cases[1].Failure.Text; got != "admitted, want rejected\ncalled none, want [\"a\"]\n" {
		t.Errorf("failure text read back: %q", got)
	}
}

// xmlSuites is the document as a CI system reads it back.
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
