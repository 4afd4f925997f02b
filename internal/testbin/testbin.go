package testbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Program is a Go program of this repository that tests run as a process.
type Program struct {
	// Env names a variable that, when set, holds the path of the program already built.
	Env string
	// Module is the directory of the program's Go module, relative to admit's module root ("" for
	// admit's own module).
	Module string
	// Package is the package to build, as `go build` takes it from within Module.
	Package string
	// Static builds with CGO_ENABLED=0, as the container image ships admit.
	Static bool
}

// Admit is the admit command. `make test-binaries` builds it into $ADMIT_BINARY.
func Admit() Program {
	return Program{Env: "ADMIT_BINARY", Package: "./cmd/admit", Static: true}
}

// ContribLabeller is contrib/controllerruntime's example server. `make test-binaries` builds it
// into $ADMIT_CONTRIB_LABELLER.
func ContribLabeller() Program {
	return Program{Env: "ADMIT_CONTRIB_LABELLER", Module: "contrib/controllerruntime", Package: "./example/labeller"}
}

// Binary is a program ready to run. Close removes it when this test run built it.
type Binary struct {
	// Path is the executable's absolute path.
	Path string
	// built is the temporary directory of a binary this run built; empty when it came from the
	// program's environment variable.
	built string
}

// Build returns the binary named by p.Env when that is set, else builds p into a temporary
// directory.
func (p Program) Build() (*Binary, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", p.Package, err)
	}
	return p.build(os.Getenv, "go", wd)
}

func (p Program) build(getenv func(string) string, goTool, workDir string) (*Binary, error) {
	if path := getenv(p.Env); path != "" {
		return prebuilt(p.Env, path)
	}
	root, err := moduleRoot(workDir)
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", p.Package, err)
	}
	dir, err := os.MkdirTemp("", "admit-testbin-")
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", p.Package, err)
	}
	out := filepath.Join(dir, filepath.Base(p.Package))
	cmd := exec.Command(goTool, "build", "-o", out, p.Package)
	cmd.Dir = filepath.Join(root, p.Module)
	cmd.Env = os.Environ()
	if p.Static {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
	}
	if output, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("go build %s in %s: %w\n%s", p.Package, cmd.Dir, err, output)
	}
	return &Binary{Path: out, built: dir}, nil
}

// prebuilt checks the binary a variable names.
func prebuilt(env, path string) (*Binary, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("$%s=%s: %w", env, path, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("$%s: %w (make test-binaries builds it)", env, err)
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return nil, fmt.Errorf("$%s=%s: not an executable file", env, path)
	}
	return &Binary{Path: abs}, nil
}

// moduleRoot is admit's module root: the nearest directory at or above dir holding a go.mod.
// Tests run in their package's directory, inside the module.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
	}
}

// Close removes a binary this run built; one named by an environment variable stays.
func (b *Binary) Close() error {
	if b == nil || b.built == "" {
		return nil
	}
	return os.RemoveAll(b.built)
}
