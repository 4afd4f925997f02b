package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

func beginMarker(name string) string { return "<!-- admitbench:begin " + name + " -->" }
func endMarker(name string) string   { return "<!-- admitbench:end " + name + " -->" }

// Splice replaces the text between the begin and end markers of every section in page. Each
// section's markers must appear exactly once, in order; a missing or repeated marker is an error
// naming it, so a page is never half updated.
func Splice(page []byte, sections map[string]string) ([]byte, error) {
	names := make([]string, 0, len(sections))
	for name := range sections {
		names = append(names, name)
	}
	slices.Sort(names) // deterministic error messages
	out := page
	for _, name := range names {
		begin, end := []byte(beginMarker(name)), []byte(endMarker(name))
		if n := bytes.Count(out, begin); n != 1 {
			return nil, fmt.Errorf("section %q: found %d %q markers, want exactly one", name, n, begin)
		}
		if n := bytes.Count(out, end); n != 1 {
			return nil, fmt.Errorf("section %q: found %d %q markers, want exactly one", name, n, end)
		}
		i := bytes.Index(out, begin) + len(begin)
		j := bytes.Index(out, end)
		if j < i {
			return nil, fmt.Errorf("section %q: the end marker comes before the begin marker", name)
		}
		body := "\n" + strings.TrimSpace(sections[name]) + "\n"
		out = slices.Concat(out[:i:i], []byte(body), out[j:])
	}
	return out, nil
}
