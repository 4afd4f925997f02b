package testsuite

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/admitkit/admit/internal/structured"
)

// WriteStructured writes the results as JSON or YAML (structured.JSON, structured.YAML), a case
// report at a time: the bytes of the results encoded whole (Results.MarshalJSON), without
// holding every report of a file of many cases.
//
// The results are encoded without their cases first, each file's list of cases a placeholder
// no report can contain; the placeholders are then replaced by the cases, each encoded where it
// stands.
func WriteStructured(w io.Writer, format string, r *Results) error {
	var token [12]byte
	if _, err := rand.Read(token[:]); err != nil {
		return err
	}
	placeholder := "admit-cases-" + hex.EncodeToString(token[:]) + "-"
	shell := r.json()
	for i, s := range r.Suites {
		var cases any = []*CaseReport{}
		if s.NumCases() > 0 {
			cases = placeholder + strconv.Itoa(i)
		}
		shell.Suites[i] = s.json(cases)
	}
	var whole bytes.Buffer
	if err := structured.Write(&whole, format, shell); err != nil {
		return err
	}
	// The placeholder's line: `"cases": "…-3",` in JSON, `- cases: …-3` in YAML.
	line := regexp.MustCompile(`(?m)^( *(?:- )?)("cases"|cases): "?` + placeholder + `(\d+)"?(,?)$`)
	out := bufio.NewWriter(w)
	rest := whole.Bytes()
	for _, m := range line.FindAllSubmatchIndex(rest, -1) {
		out.Write(rest[:m[0]])
		lead, key, comma := string(rest[m[2]:m[3]]), string(rest[m[4]:m[5]]), string(rest[m[8]:m[9]])
		i, _ := strconv.Atoi(string(rest[m[6]:m[7]]))
		var err error
		if format == structured.JSON {
			err = writeJSONCases(out, r.Suites[i], lead, key, comma)
		} else {
			err = writeYAMLCases(out, r.Suites[i], lead, key)
		}
		if err != nil {
			return err
		}
		rest = rest[m[1]:]
	}
	out.Write(rest)
	return out.Flush()
}

// writeJSONCases writes a report's cases as the JSON array at the key's place: lead is the
// key's indentation, and the items are indented one step more.
func writeJSONCases(out *bufio.Writer, s *Report, lead, key, comma string) error {
	fmt.Fprintf(out, "%s%s: [", lead, key)
	indent := lead + "  "
	first := true
	err := s.EachCase(func(cr *CaseReport) error {
		item, err := structured.JSONAt(cr, indent)
		if err != nil {
			return fmt.Errorf("case %q: %w", cr.Name, err)
		}
		if !first {
			out.WriteString(",")
		}
		first = false
		out.WriteString("\n" + indent)
		_, err = out.Write(item)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	_, err = fmt.Fprintf(out, "\n%s]%s", lead, comma)
	return err
}

// writeYAMLCases writes a report's cases as the YAML sequence at the key's place, each item as
// it stands in the results: `suites: [{cases: [...]}]`.
func writeYAMLCases(out *bufio.Writer, s *Report, lead, key string) error {
	fmt.Fprintf(out, "%s%s:", lead, key)
	err := s.EachCase(func(cr *CaseReport) error {
		item, err := structured.YAMLItemAt(cr, "suites", "cases")
		if err != nil {
			return fmt.Errorf("case %q: %w", cr.Name, err)
		}
		// The placeholder's line break follows the last item.
		out.WriteString("\n")
		_, err = out.Write(bytes.TrimSuffix(item, []byte("\n")))
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	return nil
}
