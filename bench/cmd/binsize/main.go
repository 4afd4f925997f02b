package main

import (
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/admitkit/admit/bench/report"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit codes: the size is within the goal, over it, or it could not be checked.
const (
	exitOK      = 0
	exitOver    = 1
	exitNoCheck = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("binsize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	binary := fs.String("binary", "", "the binary, built as the release is built")
	maxBytes := fs.Int64("max-bytes", report.GoalBinaryMB*1e6, "the goal: the most bytes the binary may have")
	tags := fs.String("tags", "grpcnotrace", "the release's build tags, which the binary must have been built with")
	dir := fs.String("dir", "..", "the module to build the unstripped twin in, over the goal")
	pkg := fs.String("package", "./cmd/admit", "the package of the binary, to build its twin")
	if err := fs.Parse(args); err != nil {
		return exitNoCheck
	}
	if *binary == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "binsize: -binary FILE, and no arguments")
		return exitNoCheck
	}
	bin, err := report.ReadBinary(*binary)
	if err == nil {
		err = releaseBuilt(bin.Settings, *tags)
	}
	if err == nil {
		err = stripped(*binary)
	}
	if err != nil {
		fmt.Fprintf(stderr, "binsize: %s: %v\n", *binary, err)
		return exitNoCheck
	}
	fmt.Fprintf(stdout, "%s: %d bytes, the goal at most %d (%.1f MB of %.1f MB)\n", *binary, bin.Bytes, *maxBytes, float64(bin.Bytes)/1e6, float64(*maxBytes)/1e6)
	if bin.Bytes <= *maxBytes {
		return exitOK
	}
	fmt.Fprintf(stdout, "%s is over its goal by %d bytes. What the linker kept:\n", *binary, bin.Bytes-*maxBytes)
	if err := explain(stdout, *dir, *pkg, *tags, bin.ModulePaths); err != nil {
		fmt.Fprintf(stderr, "binsize: explaining the size: %v\n", err)
	}
	return exitOver
}

// releaseBuilt reports how a binary's build settings differ from the release's where that
// changes its size: static (CGO_ENABLED=0) and the release tags. A binary built otherwise has
// another size, and checking it would check nothing. -trimpath may be missing: it only shortens
// the file paths the binary records, so a binary without it is a little larger than the
// release's, and within the goal it holds the release within it too (make test builds so, to
// reuse its compiled packages). stripped says whether -s -w were given.
func releaseBuilt(settings []string, tags string) error {
	var missing []string
	for _, want := range []string{"CGO_ENABLED=0", "-tags=" + tags} {
		if !slices.Contains(settings, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("not built as the release is built: no %s (settings: %s)", strings.Join(missing, ", "), strings.Join(settings, " "))
	}
	return nil
}

// stripped reports an ELF binary that has a symbol table (-ldflags=-s not given) or DWARF
// (-ldflags=-w not given), which the release has not.
func stripped(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var kept []string
	for _, s := range f.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			kept = append(kept, s.Name)
		}
	}
	if len(kept) > 0 {
		return fmt.Errorf("not built as the release is built: not stripped (-ldflags \"-s -w\"), it has %s", strings.Join(kept, ", "))
	}
	return nil
}

// explain builds pkg again, in dir, as the release is built but unstripped and with the
// linker's dependency dump, and writes what the linker kept.
func explain(w io.Writer, dir, pkg, tags string, modules []string) error {
	tmp, err := os.MkdirTemp("", "binsize")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	twin, dumpdep := filepath.Join(tmp, "twin"), filepath.Join(tmp, "dumpdep.txt")
	dump, err := os.Create(dumpdep)
	if err != nil {
		return err
	}
	defer dump.Close()
	// Without -trimpath, as make test builds admit, so that the packages are compiled already.
	build := exec.Command("go", "build", "-tags", tags, "-ldflags=-dumpdep", "-o", twin, pkg)
	build.Dir, build.Stderr = dir, dump
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build %s with -ldflags=-dumpdep (its output: %s): %w", pkg, dumpdep, err)
	}
	linking, err := report.ReadLinking(twin, dumpdep, modules)
	if err != nil {
		return err
	}
	return linking.WriteText(w)
}
