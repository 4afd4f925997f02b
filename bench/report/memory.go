package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MemoryBenchmark is the name of the memory benchmark in internal/cli/memory_bench_test.go whose
// output ParseMemory reads; its sub-benchmarks are the commands.
const MemoryBenchmark = "BenchmarkCommandMemory"

// GoalMemoryGrowth is the goal for every command that takes objects: its peak RSS at
// 100,000 objects at most this many times its peak at 1,000.
const GoalMemoryGrowth = 1.5

// Memory is what the memory benchmark measured: each command on generated inputs of several
// sizes, each command and size in a process of its own.
type Memory struct {
	CPU      string
	Commands []MemoryCommand
}

// MemoryCommand is one command's runs by size, smallest first.
type MemoryCommand struct {
	Name  string
	Sizes []MemorySize
}

// MemorySize is one run: the objects given, the process's peak RSS in MiB, its CPU time and
// objects per second.
type MemorySize struct {
	Objects          int
	PeakRSS          float64
	CPUSeconds       float64
	ObjectsPerSecond float64
}

// ParseMemory reads Go benchmark output of BenchmarkCommandMemory: result lines named
// BenchmarkCommandMemory/COMMAND[-PROCS] with objects, objects/s, cpu-s/op and peak-RSS-MiB
// metrics. A command and size measured twice keeps the last run.
func ParseMemory(output []byte) (*Memory, error) {
	m := &Memory{}
	byName := map[string]int{}
	var err error
	m.CPU, err = eachResult(output, subOf(MemoryBenchmark), func(line int, text string, fields []string) error {
		if len(fields)%2 != 0 {
			return fmt.Errorf("line %d: metrics are not value-unit pairs: %q", line, text)
		}
		name := strings.TrimPrefix(fields[0], MemoryBenchmark+"/")
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		var run MemorySize
		for i := 2; i < len(fields); i += 2 {
			x, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return fmt.Errorf("line %d: metric %s: %w", line, fields[i+1], err)
			}
			switch fields[i+1] {
			case "objects":
				run.Objects = int(x)
			case "objects/s":
				run.ObjectsPerSecond = x
			case "cpu-s/op":
				run.CPUSeconds = x
			case "peak-RSS-MiB":
				run.PeakRSS = x
			}
		}
		if run.Objects == 0 || run.PeakRSS == 0 || run.CPUSeconds == 0 {
			return fmt.Errorf("line %d: want objects, cpu-s/op and peak-RSS-MiB metrics: %q", line, text)
		}
		i, seen := byName[name]
		if !seen {
			i = len(m.Commands)
			byName[name] = i
			m.Commands = append(m.Commands, MemoryCommand{Name: name})
		}
		c := &m.Commands[i]
		c.Sizes = slices.DeleteFunc(c.Sizes, func(s MemorySize) bool { return s.Objects == run.Objects })
		c.Sizes = append(c.Sizes, run)
		slices.SortFunc(c.Sizes, func(a, b MemorySize) int { return a.Objects - b.Objects })
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(m.Commands) == 0 {
		return nil, fmt.Errorf("no %s result line found", MemoryBenchmark)
	}
	return m, nil
}

// growth is a command's peak RSS at its largest size over its peak at its smallest, and the
// two sizes; ok is false with fewer than two sizes.
func (c MemoryCommand) growth() (ratio float64, smallest, largest MemorySize, ok bool) {
	if len(c.Sizes) < 2 {
		return 0, MemorySize{}, MemorySize{}, false
	}
	smallest, largest = c.Sizes[0], c.Sizes[len(c.Sizes)-1]
	return largest.PeakRSS / smallest.PeakRSS, smallest, largest, true
}

// memoryAudit is the audit benchmark's runs as a command of the memory table: it measures the
// same, for `admit audit`.
func memoryAudit(a *Audit) MemoryCommand {
	c := MemoryCommand{Name: "audit"}
	for _, s := range a.Sizes {
		c.Sizes = append(c.Sizes, MemorySize{Objects: s.Objects, PeakRSS: s.PeakRSS, CPUSeconds: s.CPUSeconds, ObjectsPerSecond: s.ObjectsPerSecond})
	}
	return c
}

func memorySection(in Input, rep *Report) error {
	if in.Memory == nil {
		rep.Sections[SectionMemory] = "Not measured in this run (`make bench` runs it with `make bench-memory`)."
		rep.goals = append(rep.goals, goal{what: "Peak RSS at 100,000 objects over 1,000", target: fmt.Sprintf("≤ %s×", num(GoalMemoryGrowth)), measured: "–", status: "not measured"})
		return nil
	}
	commands := slices.Clone(in.Memory.Commands)
	if in.Audit != nil {
		commands = append(commands, memoryAudit(in.Audit))
	}
	var sizes []int
	for _, c := range commands {
		for _, s := range c.Sizes {
			if !slices.Contains(sizes, s.Objects) {
				sizes = append(sizes, s.Objects)
			}
		}
	}
	slices.Sort(sizes)
	var b strings.Builder
	fmt.Fprintf(&b, "Each command on generated objects in a process of its own, its peak resident memory (VmHWM) in MiB; the raw output is [`bench/results/memory.txt`](%smemory.txt) (audit's rows are the audit benchmark's above).\n\n", in.ChartPath)
	b.WriteString("| Command |")
	for _, n := range sizes {
		fmt.Fprintf(&b, " %s objects |", thousands(n))
	}
	b.WriteString(" Largest over smallest | CPU-s per 1,000 objects, largest |\n|---|")
	for range sizes {
		b.WriteString("---:|")
	}
	b.WriteString("---:|---:|\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "| `%s` |", c.Name)
		for _, n := range sizes {
			i := slices.IndexFunc(c.Sizes, func(s MemorySize) bool { return s.Objects == n })
			if i < 0 {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %s |", num(c.Sizes[i].PeakRSS))
		}
		ratio, _, largest, ok := c.growth()
		if !ok {
			b.WriteString(" – | – |\n")
			continue
		}
		fmt.Fprintf(&b, " %s× | %s |\n", num(ratio), num(largest.CPUSeconds*1000/float64(largest.Objects)))
		rep.addGoal(fmt.Sprintf("Peak RSS of `%s` at %s objects over %s", c.Name, thousands(largest.Objects), thousands(c.Sizes[0].Objects)),
			fmt.Sprintf("≤ %s×", num(GoalMemoryGrowth)), num(ratio)+"×", ratio <= GoalMemoryGrowth)
	}
	rep.Sections[SectionMemory] = b.String()
	return nil
}
