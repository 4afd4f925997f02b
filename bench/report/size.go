package report

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"strings"
)

// Binary is the release binary as `make image` ships it.
type Binary struct {
	Bytes int64
	// GoVersion, Modules and Settings are what `go version -m` prints of it.
	GoVersion string
	Modules   int
	// ModulePaths are the main module's path and its dependencies'.
	ModulePaths []string
	// Settings are the build settings that change what is linked: -tags, -ldflags, CGO_ENABLED.
	Settings []string
}

// ReadBinary reads the size and build information of the binary at path.
func ReadBinary(path string) (*Binary, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the build information of %s: %w", path, err)
	}
	b := &Binary{Bytes: st.Size(), GoVersion: info.GoVersion, Modules: len(info.Deps), ModulePaths: []string{info.Main.Path}}
	for _, d := range info.Deps {
		b.ModulePaths = append(b.ModulePaths, d.Path)
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "-tags", "-ldflags", "CGO_ENABLED", "-trimpath":
			b.Settings = append(b.Settings, s.Key+"="+s.Value)
		}
	}
	return b, nil
}

func sizeSection(in Input, rep *Report) error {
	bin := in.Binary
	target := fmt.Sprintf("≤ %s MB stripped", num(GoalBinaryMB))
	if bin == nil {
		rep.Sections[SectionSize] = "Not measured in this run (`make bench` builds the release binary with `make release-binary`)."
		rep.goals = append(rep.goals, goal{what: "Release binary size", target: target, measured: "–", status: "not measured"})
		return nil
	}
	mb := float64(bin.Bytes) / 1e6
	met := mb <= GoalBinaryMB
	var b strings.Builder
	fmt.Fprintf(&b, "The release binary, `bin/linux/admit` as `make image` ships it (%s), %s, linking %d modules: **%s MB** (%s MiB).\n\n",
		strings.Join(quoted(bin.Settings), ", "), bin.GoVersion, bin.Modules, num(mb), num(float64(bin.Bytes)/(1<<20)))
	fmt.Fprintf(&b, "- Size goal (%s, every feature in): **%s** — %s MB.\n", target, metOrMissed(met), num(mb))
	if l := in.Linking; l != nil {
		if l.KeepsAllMethods {
			fmt.Fprintf(&b, "- The linker keeps every exported method of every linked type, called or not: a call through reflection by a name or index it cannot see is reachable, first `%s`, from %s.\n",
				l.Cause[0], joinCause(l.Cause[1:]))
		} else {
			b.WriteString("- The linker drops the exported methods nothing calls: no call through reflection by a name or index it cannot see is reachable.\n")
		}
		b.WriteString("\nCode and data linked, by module (the symbols of an unstripped build of the same configuration; the file adds, in proportion to the code, the tables that describe it):\n\n")
		b.WriteString("| Module | Linked | Share |\n|---|---:|---:|\n")
		for _, m := range l.Modules {
			name := m.Module
			if name == "Go" {
				name = "Go: the standard library, the runtime's tables of types and functions"
			}
			fmt.Fprintf(&b, "| %s | %s MB | %s %% |\n", name, num(float64(m.Bytes)/1e6), num(100*float64(m.Bytes)/float64(l.Total)))
		}
	}
	rep.Sections[SectionSize] = b.String()
	rep.addGoal("Release binary size", target, num(mb)+" MB", met)
	return nil
}

// joinCause writes the program's functions on the path to a call, nearest caller first, at most
// a few.
func joinCause(path []string) string {
	if len(path) == 0 {
		return "the standard library alone"
	}
	return strings.Join(quoted(causePath(path)), " ← ")
}

func quoted(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return out
}
