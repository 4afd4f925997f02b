package usage

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where a benchmark ran, for the report next to its numbers.
type Machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	GoVersion string `json:"goVersion"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
}

// DescribeMachine returns the machine running the caller. The CPU model comes from /proc/cpuinfo
// and is "unknown" where that file does not exist.
func DescribeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), CPUModel: "unknown", GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if model := cpuModel(info); model != "" {
			m.CPUModel = model
		}
	}
	return m
}

// cpuModel returns the first "model name" in a /proc/cpuinfo listing.
func cpuModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// LoadAverage returns the 1, 5 and 15 minute load averages from /proc/loadavg: on a shared
// machine they say how much other work competed with a measurement.
func LoadAverage() ([3]float64, error) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return [3]float64{}, fmt.Errorf("reading the load average: %w", err)
	}
	return parseLoadAverage(string(data))
}

func parseLoadAverage(s string) ([3]float64, error) {
	var load [3]float64
	fields := strings.Fields(s)
	if len(fields) < 3 {
		return load, fmt.Errorf("load average %q: want three numbers", strings.TrimSpace(s))
	}
	for i := range load {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return load, fmt.Errorf("load average %q: field %d: %w", strings.TrimSpace(s), i+1, err)
		}
		load[i] = v
	}
	return load, nil
}
