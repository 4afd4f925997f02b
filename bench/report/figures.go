package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Figure is a number the hand-written text of a docs page states: one value or a range of two,
// in a unit or in none.
type Figure struct {
	// Line is the page's line, from 1; Text the figure as written.
	Line int
	Text string
	// Values are the value, or a range's two ends; Decimals how many digits each has after the
	// point, the precision a recorded number is rounded to before it is compared.
	Values   []float64
	Decimals []int
	// Unit is one of units' keys, or empty.
	Unit string
}

// A Quantity is a number a recorded file or a generated section holds, in a unit or in none.
type Quantity struct {
	Value float64
	Unit  string
}

// unit is a unit's dimension and its size in the dimension's base unit.
type unit struct {
	dimension string
	scale     float64
}

// units are the units a figure is read in: those the page and the benchmarks' output write.
var units = map[string]unit{
	"ns": {"time", 1e-9}, "µs": {"time", 1e-6}, "ms": {"time", 1e-3}, "s": {"time", 1},
	"seconds": {"time", 1}, "CPU-s": {"time", 1}, "CPU-seconds": {"time", 1}, "minutes": {"time", 60},
	"B": {"bytes", 1}, "KiB": {"bytes", 1 << 10}, "MiB": {"bytes", 1 << 20}, "GiB": {"bytes", 1 << 30},
	"KB": {"bytes", 1e3}, "MB": {"bytes", 1e6}, "GB": {"bytes", 1e9},
	"MB/s": {"bytes/s", 1e6}, "GB/s": {"bytes/s", 1e9},
	"objects/s": {"1/s", 1}, "requests/s": {"1/s", 1}, "req/s": {"1/s", 1},
	"×": {"ratio", 1}, "%": {"percent", 1}, "GHz": {"frequency", 1e9},
}

// unitNames are units' keys, longest first, so that "MB/s" is read whole and not as "MB".
var unitNames = func() []string {
	var names []string
	for name := range units {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return names
}()

var (
	inlineCode  = regexp.MustCompile("`[^`]*`")
	linkTarget  = regexp.MustCompile(`\]\([^)]*\)`)
	htmlComment = regexp.MustCompile(`<!--.*?-->`)
	sectionMark = regexp.MustCompile(`^<!-- admitbench:(begin|end) (\w+) -->$`)
	fence       = regexp.MustCompile("^\\s*```\\s*(\\w*)")
)

// ProseFigures are the figures of a page's hand-written text: every line outside the generated
// sections and outside fenced blocks of commands (```sh), with inline code, link targets and
// comments left out (names, paths, flags). A number is a figure unless it is part of a word or a
// name: preceded by a letter, digit, point, hyphen, slash, underscore, equals sign or colon
// (P-256, HTTP/1.1, k8s, n=10), followed by a letter that starts no unit (1x, 3rd) or by a point
// and a digit (the versions 1.26.8).
func ProseFigures(page []byte) []Figure {
	var figures []Figure
	generated, command, inCode := false, false, false
	sc := bufio.NewScanner(bytes.NewReader(page))
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if m := sectionMark.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
			generated = m[1] == "begin"
			continue
		}
		if m := fence.FindStringSubmatch(text); m != nil {
			if !command && (m[1] == "sh" || m[1] == "bash") {
				command = true
			} else if command {
				command = false
			}
			continue
		}
		if generated || command {
			continue
		}
		if strings.TrimSpace(text) == "" {
			inCode = false // inline code ends with its paragraph
		}
		if inCode {
			text = "`" + text // the line continues inline code the line before opened
		}
		inCode = strings.Count(text, "`")%2 == 1
		figures = append(figures, lineFigures(line, text)...)
	}
	return figures
}

// GeneratedQuantities are the numbers of a page's generated sections, read as figures are.
func GeneratedQuantities(page []byte) []Quantity {
	var out []Quantity
	generated := false
	sc := bufio.NewScanner(bytes.NewReader(page))
	for line := 1; sc.Scan(); line++ {
		if m := sectionMark.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			generated = m[1] == "begin"
			continue
		}
		if !generated {
			continue
		}
		for _, f := range lineFigures(line, sc.Text()) {
			for _, v := range f.Values {
				out = append(out, Quantity{Value: v, Unit: f.Unit})
			}
		}
	}
	return out
}

// OutputQuantities are the metrics of Go benchmark output, value-unit pairs after each result
// line's name and iterations, in the units figures are read in: ns/op in ns, cpu-µs/object in µs,
// floor-p50-ms in ms, cpu-s/op in s, peak-rss-MiB in MiB, B/op and patch-B in B, objects/s and
// MB/s as they are; counts (allocs/op, ops, objects, load1) in none.
func OutputQuantities(output []byte) []Quantity {
	var out []Quantity
	sc := bufio.NewScanner(bytes.NewReader(output))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			out = append(out, Quantity{Value: v, Unit: metricUnit(fields[i+1])})
		}
	}
	return out
}

// JSONQuantities are the numbers of a JSON document, such as a results file the harness writes:
// members named ...Nanoseconds in ns, ...Bytes in B, others in none.
func JSONQuantities(data []byte) ([]Quantity, error) {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var out []Quantity
	var walk func(v any, name string)
	walk = func(v any, name string) {
		switch v := v.(type) {
		case map[string]any:
			for k, member := range v {
				walk(member, k)
			}
		case []any:
			for _, item := range v {
				walk(item, name)
			}
		case float64:
			q := Quantity{Value: v}
			switch {
			case strings.HasSuffix(name, "Nanoseconds"):
				q.Unit = "ns"
			case strings.HasSuffix(name, "Bytes"):
				q.Unit = "B"
			}
			out = append(out, q)
		}
	}
	walk(doc, "")
	return out, nil
}

// metricUnit is the unit of a benchmark metric's name, empty for a count.
func metricUnit(metric string) string {
	name, _, _ := strings.Cut(metric, "/op")
	if metric == "objects/s" || metric == "MB/s" {
		return metric
	}
	for _, u := range []string{"µs", "MiB", "ms", "ns", "s", "B"} {
		if name == u || strings.HasSuffix(name, "-"+u) || strings.Contains(name, "-"+u+"/") {
			return u
		}
	}
	return ""
}

// Held reports whether each of the figure's values is a quantity in a compatible unit — the
// same dimension, or any when the figure has no unit — rounded to the figure's precision.
func (f Figure) Held(quantities []Quantity) bool {
	for i, v := range f.Values {
		if !held(v, f.Decimals[i], f.Unit, quantities) {
			return false
		}
	}
	return true
}

func held(v float64, decimals int, unitName string, quantities []Quantity) bool {
	want, hasUnit := units[unitName]
	tolerance := 0.5*math.Pow(10, -float64(decimals)) + 1e-9*math.Abs(v)
	for _, q := range quantities {
		x := q.Value
		if hasUnit {
			got, ok := units[q.Unit]
			if !ok || got.dimension != want.dimension {
				continue
			}
			x = x * got.scale / want.scale
		}
		if math.Abs(x-v) <= tolerance {
			return true
		}
	}
	return false
}

// lineFigures reads the figures of one line of text.
func lineFigures(line int, text string) []Figure {
	blank := func(s string) string { return strings.Repeat(" ", len(s)) }
	text = htmlComment.ReplaceAllStringFunc(text, blank)
	text = inlineCode.ReplaceAllStringFunc(text, blank)
	text = linkTarget.ReplaceAllStringFunc(text, func(s string) string { return "]" + blank(s[1:]) })
	var figures []Figure
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isDigit(r) || !startsFigure(text[:i]) {
			i += size
			continue
		}
		v, d, end, ok := readNumber(text, i)
		if !ok {
			i = skipWord(text, end)
			continue
		}
		f := Figure{Line: line, Values: []float64{v}, Decimals: []int{d}}
		end, f.Unit = readUnit(text, end)
		if dash := "–"; strings.HasPrefix(text[end:], dash) && end+len(dash) < len(text) && isDigit(rune(text[end+len(dash)])) {
			if v2, d2, end2, ok := readNumber(text, end+len(dash)); ok {
				end2, unit2 := readUnit(text, end2)
				if unit2 != "" {
					f.Unit = unit2
				}
				f.Values, f.Decimals, end = append(f.Values, v2), append(f.Decimals, d2), end2
			}
		}
		f.Text = strings.TrimSpace(text[i:end])
		figures = append(figures, f)
		i = end
	}
	return figures
}

// startsFigure says whether a number may start after before: not within a word or a name.
func startsFigure(before string) bool {
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".-/_=:", r))
}

// readNumber reads the number at text[i:]: digits, thousands in groups of three after a comma or
// a space, a decimal part. ok is false for a part of a name (a version such as 1.26.8, a digit
// followed by a letter that starts no unit); end is then where the name's digits end.
func readNumber(text string, i int) (v float64, decimals, end int, ok bool) {
	j := i
	for j < len(text) && isDigit(rune(text[j])) {
		j++
	}
	digits := text[i:j]
	if j-i <= 3 {
		for j+4 <= len(text) && (text[j] == ',' || text[j] == ' ') && allDigits(text[j+1:j+4]) && (j+4 == len(text) || !isDigit(rune(text[j+4]))) {
			digits += text[j+1 : j+4]
			j += 4
		}
	}
	if j+1 < len(text) && text[j] == '.' && isDigit(rune(text[j+1])) {
		k := j + 1
		for k < len(text) && isDigit(rune(text[k])) {
			k++
		}
		decimals = k - j - 1
		digits += text[j:k]
		j = k
		if j+1 < len(text) && text[j] == '.' && isDigit(rune(text[j+1])) {
			return 0, 0, j, false // a version
		}
	}
	if j < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[j:]); unicode.IsLetter(r) {
			if _, u := readUnit(text, j); u == "" {
				return 0, 0, j, false
			}
		}
	}
	v, err := strconv.ParseFloat(digits, 64)
	return v, decimals, j, err == nil
}

// readUnit reads the unit after a number at text[i:], after spaces; it returns where the unit
// ends, or i and "" when none follows.
func readUnit(text string, i int) (int, string) {
	j := i
	for j < len(text) && text[j] == ' ' {
		j++
	}
	for _, name := range unitNames {
		if !strings.HasPrefix(text[j:], name) {
			continue
		}
		end := j + len(name)
		if r, _ := utf8.DecodeRuneInString(text[end:]); end < len(text) && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			continue // a word that starts with a unit's letters
		}
		return end, name
	}
	return i, ""
}

// skipWord moves past the rest of a name whose digits end at i.
func skipWord(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-') {
			break
		}
		i += size
	}
	return i
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func allDigits(s string) bool {
	for _, r := range s {
		if !isDigit(r) {
			return false
		}
	}
	return true
}
