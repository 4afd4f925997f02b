package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReleaseBuilt(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings []string
		missing  string
	}{
		{"the release's", []string{"-tags=grpcnotrace", "-trimpath=true", "CGO_ENABLED=0"}, ""},
		{"dynamic", []string{"-tags=grpcnotrace", "-trimpath=true", "CGO_ENABLED=1"}, "no CGO_ENABLED=0"},
		{"without the tags", []string{"-trimpath=true", "CGO_ENABLED=0"}, "no -tags=grpcnotrace"},
		{"other tags", []string{"-tags=e2e", "-trimpath=true", "CGO_ENABLED=0"}, "no -tags=grpcnotrace"},
		{"paths kept: a little larger than the release's, an upper bound", []string{"-ldflags=-s -w", "-tags=grpcnotrace", "CGO_ENABLED=0"}, ""},
		{"none of it", nil, "no CGO_ENABLED=0, -tags=grpcnotrace"},
	} {
		err := releaseBuilt(tc.settings, "grpcnotrace")
		switch {
		case tc.missing == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.missing != "" && (err == nil || !strings.Contains(err.Error(), tc.missing+" (settings")):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.missing)
		}
	}
}

// A program built as the release is built passes under its goal; over it, binsize exits 1 and
// says what the linker kept: here every exported method, because text/template looks fields up
// by name.
func TestRun(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skipf("the explanation reads ELF symbols; Go binaries on %s are not ELF", runtime.GOOS)
	}
	bin := filepath.Join(t.TempDir(), "reflective")
	build := exec.Command("go", "build", "-trimpath", "-tags", "grpcnotrace", "-ldflags=-s -w", "-o", bin, "./testdata/reflective")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-binary", bin, "-max-bytes", "100000000", "-dir", ".", "-package", "./testdata/reflective"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("under the goal: exit %d\n%s%s", code, &stdout, &stderr)
	}
	stdout.Reset()
	if code := run([]string{"-binary", bin, "-max-bytes", "1000", "-dir", ".", "-package", "./testdata/reflective"}, &stdout, &stderr); code != exitOver {
		t.Fatalf("over the goal: exit %d\n%s%s", code, &stdout, &stderr)
	}
	for _, want := range []string{
		"is over its goal by ",
		"The linker keeps every exported method of every linked type, called or not: a call through reflection by a name or index it cannot see is reachable, first text/template.",
		"Code and data linked, by module",
		"\n  Go ",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the explanation lacks %q:\n%s", want, &stdout)
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", &stderr)
	}
	// Built otherwise, unstripped: nothing to check.
	unstripped := filepath.Join(t.TempDir(), "unstripped")
	build = exec.Command("go", "build", "-trimpath", "-tags", "grpcnotrace", "-ldflags=", "-o", unstripped, "./testdata/reflective")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	stderr.Reset()
	if code := run([]string{"-binary", unstripped}, &stdout, &stderr); code != exitNoCheck || !strings.Contains(stderr.String(), "not stripped") {
		t.Errorf("an unstripped binary: exit %d, stderr %s", code, &stderr)
	}
}
