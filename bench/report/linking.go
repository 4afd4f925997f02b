package report

import (
	"bufio"
	"cmp"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Linking is what the linker kept of the release binary, read from an unstripped twin of it:
// its symbols' sizes by module, and whether it could drop the exported methods nothing calls
// (`go build -ldflags=-dumpdep`).
type Linking struct {
	// Modules are the modules by the bytes of code and data of theirs that were linked, largest
	// first; the standard library with the runtime's tables of types and functions is "Go".
	Modules []ModuleBytes
	// Total is the bytes of all symbols (code and data; the file adds the tables that describe
	// the code, in proportion to it).
	Total int64
	// KeepsAllMethods says the linker kept every exported method of every linked type, because
	// something calls methods through reflection by a name or index it cannot see; Cause is the
	// first such call and the path from the program's entry to it.
	KeepsAllMethods bool
	Cause           []string
}

// ModuleBytes is one module's share of the linked symbols.
type ModuleBytes struct {
	Module string
	Bytes  int64
}

// ReadSymbols sums the sizes of the symbols of an unstripped ELF binary by module. modules are
// the binary's module paths (its build information); a package in none of them is the standard
// library's. Uninitialised data (bss) takes no room in the file and is left out.
func ReadSymbols(path string, modules []string) (map[string]int64, int64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	symbols, err := f.Symbols()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	byModule := map[string]int64{}
	var total int64
	for _, sym := range symbols {
		if sym.Size == 0 || int(sym.Section) >= len(f.Sections) || f.Sections[sym.Section].Type == elf.SHT_NOBITS {
			continue
		}
		module := moduleOf(packageOf(sym.Name), modules)
		byModule[module] += int64(sym.Size)
		total += int64(sym.Size)
	}
	if total == 0 {
		return nil, 0, fmt.Errorf("%s: no symbol with a size (a stripped binary?)", path)
	}
	return byModule, total, nil
}

// packageOf is the import path of the package a symbol belongs to: up to the first dot after
// the last slash, generic arguments and receivers aside.
func packageOf(symbol string) string {
	if i := strings.IndexAny(symbol, "[("); i >= 0 {
		symbol = symbol[:i]
	}
	slash := strings.LastIndexByte(symbol, '/')
	if dot := strings.IndexByte(symbol[slash+1:], '.'); dot >= 0 {
		return symbol[:slash+1+dot]
	}
	return symbol
}

// moduleOf is the module of pkg: the longest of modules it is in, else "Go".
func moduleOf(pkg string, modules []string) string {
	best := "Go"
	for _, m := range modules {
		if (pkg == m || strings.HasPrefix(pkg, m+"/")) && (best == "Go" || len(m) > len(best)) {
			best = m
		}
	}
	return best
}

// ReadLinking reads what the linker kept of a binary from its unstripped twin (symbols) and the
// linker's dependency dump of that build (dumpdep); modules are the binary's module paths.
func ReadLinking(symbols, dumpdep string, modules []string) (*Linking, error) {
	byModule, total, err := ReadSymbols(symbols, modules)
	if err != nil {
		return nil, fmt.Errorf("the unstripped build: %w", err)
	}
	f, err := os.Open(dumpdep)
	if err != nil {
		return nil, fmt.Errorf("reading the linker's dump: %w", err)
	}
	defer f.Close()
	keeps, cause, err := ParseDumpdep(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dumpdep, err)
	}
	return &Linking{Modules: TopModules(byModule, 12), Total: total, KeepsAllMethods: keeps, Cause: cause}, nil
}

// WriteText says, for a terminal, what the linker kept: whether it had to keep every exported
// method and why, then the modules by the bytes linked.
func (l *Linking) WriteText(w io.Writer) error {
	var b strings.Builder
	if l.KeepsAllMethods {
		fmt.Fprintf(&b, "The linker keeps every exported method of every linked type, called or not: a call through reflection by a name or index it cannot see is reachable, first %s, from %s.\n",
			l.Cause[0], strings.Join(causePath(l.Cause[1:]), " <- "))
	} else {
		b.WriteString("The linker drops the exported methods nothing calls: no call through reflection by a name or index it cannot see is reachable.\n")
	}
	b.WriteString("Code and data linked, by module (symbols of an unstripped build of the same configuration):\n")
	for _, m := range l.Modules {
		fmt.Fprintf(&b, "  %-50s %8s MB %5s %%\n", m.Module, num(float64(m.Bytes)/1e6), num(100*float64(m.Bytes)/float64(l.Total)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// causePath is the path to a reflective call as a report shows it: its first few steps.
func causePath(path []string) []string {
	if len(path) == 0 {
		return []string{"the standard library alone"}
	}
	const shown = 4
	if len(path) > shown {
		path = append(path[:shown:shown], "…")
	}
	return path
}

// reflectMethodEdge matches a dependency the linker marks as calling methods through reflection.
var reflectMethodEdge = regexp.MustCompile(`^(.*?)(?: <[A-Za-z<>]*>)? -> (.*?) <[A-Za-z<>]*ReflectMethod[A-Za-z<>]*>$`)

// ParseDumpdep reads the linker's dependency dump (go build -ldflags=-dumpdep, on standard
// error), which lists each symbol the first time it is reached, from the symbol that reached it.
// A symbol marked <ReflectMethod> calls methods through reflection by a name or index the linker
// cannot see; the first one reached makes it keep every exported method. Cause is the path to it.
func ParseDumpdep(r io.Reader) (keepsAllMethods bool, cause []string, err error) {
	parent := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var culprit string
	for sc.Scan() {
		line := sc.Text()
		from, to, ok := strings.Cut(line, " -> ")
		if !ok {
			continue
		}
		from, to = stripFlags(from), stripFlags(to)
		if _, seen := parent[to]; !seen {
			parent[to] = from
		}
		if culprit == "" && reflectMethodEdge.MatchString(line) {
			culprit = to
		}
	}
	if err := sc.Err(); err != nil {
		return false, nil, err
	}
	if len(parent) == 0 {
		return false, nil, fmt.Errorf("no dependency in the linker's dump")
	}
	if culprit == "" {
		return false, nil, nil
	}
	cause = []string{culprit}
	seen := map[string]bool{}
	for s := parent[culprit]; s != "" && s != "_" && !seen[s]; s = parent[s] {
		seen[s] = true
		// The program's own functions on the way say why; the standard library's, and the
		// linker's type, closure and string symbols, do not.
		if strings.Contains(packageOf(s), ".") && !strings.HasPrefix(s, "type:") && !strings.HasPrefix(s, "go:") {
			cause = append(cause, s)
		}
	}
	return true, cause, nil
}

func stripFlags(symbol string) string {
	if i := strings.Index(symbol, " <"); i >= 0 {
		return symbol[:i]
	}
	return symbol
}

// TopModules returns the largest modules, the rest summed as "other modules".
func TopModules(byModule map[string]int64, n int) []ModuleBytes {
	var all []ModuleBytes
	for m, b := range byModule {
		all = append(all, ModuleBytes{Module: m, Bytes: b})
	}
	slices.SortFunc(all, func(a, b ModuleBytes) int {
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return strings.Compare(a.Module, b.Module)
	})
	if len(all) <= n {
		return all
	}
	rest := ModuleBytes{Module: fmt.Sprintf("%d other modules", len(all)-n)}
	for _, m := range all[n:] {
		rest.Bytes += m.Bytes
	}
	return append(all[:n:n], rest)
}
