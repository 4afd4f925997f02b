package fuzzcorpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Entry is one corpus file: its name and its values, in the fuzz target's argument order.
type Entry struct {
	Name   string
	Values []any
}

// Read returns the corpus of target, testdata/fuzz/<target> under the current directory, sorted
// by file name. It fails tb on a file it cannot read: a corpus that does not decode is one the
// fuzz target does not run either.
func Read(tb testing.TB, target string) []Entry {
	tb.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	files, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatalf("the corpus of %s: %v", target, err)
	}
	var entries []Entry
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		values, err := Decode(data)
		if err != nil {
			tb.Fatalf("%s/%s: %v", dir, f.Name(), err)
		}
		entries = append(entries, Entry{Name: f.Name(), Values: values})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries
}

// Bytes returns the corpus of a target whose only argument is a []byte.
func Bytes(tb testing.TB, target string) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, e := range Read(tb, target) {
		b, ok := e.Values[0].([]byte)
		if len(e.Values) != 1 || !ok {
			tb.Fatalf("%s/%s: want one []byte, have %d values", target, e.Name, len(e.Values))
		}
		out = append(out, b)
	}
	return out
}

// Decode reads a corpus file in the go command's format, version "go test fuzz v1": one value a
// line, each a Go conversion of a literal. It reads the types admit's fuzz targets take: []byte,
// string, byte, uint8, int, int64, uint64 and bool.
func Decode(data []byte) ([]any, error) {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) < 2 || strings.TrimSuffix(lines[0], "\r") != "go test fuzz v1" {
		return nil, fmt.Errorf("not a corpus file of version go test fuzz v1")
	}
	var values []any
	for _, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		v, err := value(line)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		values = append(values, v)
	}
	return values, nil
}

// value decodes one line: a type, then its literal in parentheses.
func value(line string) (any, error) {
	open := strings.IndexByte(line, '(')
	if open < 0 || !strings.HasSuffix(line, ")") {
		return nil, fmt.Errorf("not a conversion")
	}
	typ, lit := line[:open], line[open+1:len(line)-1]
	switch typ {
	case "[]byte", "string":
		s, err := strconv.Unquote(lit)
		if err != nil {
			return nil, fmt.Errorf("the literal: %w", err)
		}
		if typ == "string" {
			return s, nil
		}
		return bytes.Clone([]byte(s)), nil
	case "byte", "uint8":
		if r, _, tail, err := strconv.UnquoteChar(strings.TrimPrefix(lit, "'"), '\''); err == nil && strings.HasPrefix(lit, "'") && tail == "'" {
			if r > 0xff {
				return nil, fmt.Errorf("%q is not a byte", r)
			}
			return byte(r), nil
		}
		n, err := strconv.ParseUint(lit, 0, 8)
		return byte(n), err
	case "int":
		n, err := strconv.ParseInt(lit, 0, 64)
		return int(n), err
	case "int64":
		return strconv.ParseInt(lit, 0, 64)
	case "uint64":
		return strconv.ParseUint(lit, 0, 64)
	case "bool":
		return strconv.ParseBool(lit)
	}
	return nil, fmt.Errorf("the type %s is not read here", typ)
}
