package report

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Patch is what the patch benchmarks of package bench (BenchmarkDiff, BenchmarkLossless,
// BenchmarkTyped) measured over several runs of the suite.
type Patch struct {
	// CPU is what the output says of the processor, empty when it says nothing.
	CPU string
	// Runs is how many times the suite ran (the most results any benchmark has).
	Runs  int
	Cases []PatchCase
}

// PatchCase is one benchmark: a library on one input; figures are medians over runs.
type PatchCase struct {
	// Benchmark is Diff, Lossless or Typed; Case the input; Library admit, gomodules, jsondiff or
	// jsondiff-lcs (Lossless is admit's alone).
	Benchmark, Case, Library string
	Time                     time.Duration
	Allocs, Bytes, Ops       float64
}

// patchLibraryOwn is the library a benchmark without a library in its name measures.
const patchLibraryOwn = "admit"

// patchCPU reads the processor from the header go test prints ("cpu: NAME"), or from a comment
// that adds the Go version after it ("# goos: linux, cpu: NAME, go1.26.8").
var patchCPU = regexp.MustCompile(`cpu: (.*?)(?:, go\d.*)?$`)

// ParsePatch reads Go benchmark output of the patch benchmarks, run -benchmem, any number of
// times: lines named Benchmark<Benchmark>/<case>[/<library>] with ns/op, allocs/op, B/op and
// ops metrics.
func ParsePatch(output []byte) (*Patch, error) {
	p := &Patch{}
	samples := map[string]*patchSamples{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(output))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if m := patchCPU.FindStringSubmatch(text); m != nil && p.CPU == "" {
			p.CPU = m[1]
		}
		fields := strings.Fields(text)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue
		}
		if len(fields)%2 != 0 {
			return nil, fmt.Errorf("line %d: metrics are not value-unit pairs: %q", line, text)
		}
		name := strings.TrimPrefix(fields[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > strings.LastIndexByte(name, '/') {
			name = name[:i] // the GOMAXPROCS suffix
		}
		parts := strings.Split(name, "/")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("line %d: %q is not Benchmark<name>/<case>[/<library>]", line, fields[0])
		}
		s, seen := samples[name]
		if !seen {
			s = &patchSamples{metrics: map[string][]float64{}, c: PatchCase{Benchmark: parts[0], Case: parts[1], Library: patchLibraryOwn}}
			if len(parts) == 3 {
				s.c.Library = parts[2]
			}
			samples[name] = s
			order = append(order, name)
		}
		for i := 2; i < len(fields); i += 2 {
			x, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: metric %s: %w", line, fields[i+1], err)
			}
			s.metrics[fields[i+1]] = append(s.metrics[fields[i+1]], x)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("no patch benchmark result line found")
	}
	for _, name := range order {
		s := samples[name]
		if len(s.metrics["ns/op"]) == 0 || len(s.metrics["allocs/op"]) == 0 {
			return nil, fmt.Errorf("%s: no ns/op or allocs/op (run with -benchmem)", name)
		}
		c := s.c
		c.Time = time.Duration(median(s.metrics["ns/op"]))
		c.Allocs, c.Bytes, c.Ops = median(s.metrics["allocs/op"]), median(s.metrics["B/op"]), median(s.metrics["ops"])
		p.Runs = max(p.Runs, len(s.metrics["ns/op"]))
		p.Cases = append(p.Cases, c)
	}
	return p, nil
}

type patchSamples struct {
	c       PatchCase
	metrics map[string][]float64
}

func patchSection(in Input, rep *Report) error {
	p := in.Patch
	if p == nil {
		rep.Sections[SectionPatch] = "Not measured in this run (`make bench` runs it with `make bench-patch`)."
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Medians of %s of the whole suite, one after the other", plural(p.Runs, "run"))
	if p.CPU != "" {
		fmt.Fprintf(&b, ", on `%s`", p.CPU)
	}
	fmt.Fprintf(&b, "; the raw output is [`bench/results/patch.txt`](%spatch.txt). Time, allocations and memory per operation, operations in the patch, and time against admit's on the same case (other / admit).\n\n", in.ChartPath)
	b.WriteString("| Benchmark | Case | Library | Time | Allocs | Memory | Ops | vs admit |\n|---|---|---|---:|---:|---:|---:|---:|\n")
	own := map[string]PatchCase{}
	for _, c := range p.Cases {
		if c.Library == patchLibraryOwn {
			own[c.Benchmark+"/"+c.Case] = c
		}
	}
	for _, c := range p.Cases {
		ops, vs := strconv.FormatFloat(c.Ops, 'f', -1, 64), ""
		if admit, ok := own[c.Benchmark+"/"+c.Case]; ok && c.Library != patchLibraryOwn {
			if c.Ops != admit.Ops {
				ops += " ✗"
			}
			vs = ratio(float64(c.Time) / float64(admit.Time))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Benchmark, c.Case, c.Library, duration(c.Time),
			strconv.FormatFloat(c.Allocs, 'f', -1, 64), sizeIEC(c.Bytes), ops, vs)
	}
	rep.Sections[SectionPatch] = b.String()
	return nil
}

// duration prints d with three significant digits in the unit that suits it.
func duration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return num(d.Seconds()) + " s"
	case d >= time.Millisecond:
		return num(millis(d)) + " ms"
	default:
		return num(micros(d)) + " µs"
	}
}

// sizeIEC prints a number of bytes: in bytes under 1 KiB, in KiB, or in MiB from 1 MiB on.
func sizeIEC(bytes float64) string {
	switch {
	case bytes < 1<<10:
		return strconv.FormatFloat(bytes, 'f', 0, 64) + " B"
	case bytes >= 1<<20:
		return num(bytes/(1<<20)) + " MiB"
	default:
		return num(bytes/(1<<10)) + " KiB"
	}
}
