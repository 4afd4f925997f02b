package report

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// eachResult calls fn with each result line in Go benchmark output whose name matches — its line
// number, text and fields, the second an iteration count — and returns the CPU model the output
// names. Log lines that start with the name are not results. fn's error stops the reading and is
// returned.
func eachResult(output []byte, matches func(name string) bool, fn func(line int, text string, fields []string) error) (cpu string, err error) {
	sc := bufio.NewScanner(bytes.NewReader(output))
	for line := 1; sc.Scan(); line++ {
		if c := patchCPU.FindStringSubmatch(strings.TrimSpace(sc.Text())); c != nil && cpu == "" {
			cpu = c[1]
		}
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !matches(fields[0]) {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue // a log line, not a result
		}
		if err := fn(line, sc.Text(), fields); err != nil {
			return cpu, err
		}
	}
	return cpu, sc.Err()
}

// subOf matches the results of benchmark's sub-benchmarks: benchmark/SUB[-PROCS].
func subOf(benchmark string) func(string) bool {
	return func(name string) bool { return strings.HasPrefix(name, benchmark+"/") }
}
