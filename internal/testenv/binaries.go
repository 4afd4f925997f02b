package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Environment variables that point at the binaries.
const (
	envKubeAPIServer = "ADMIT_KUBE_APISERVER"
	envEtcd          = "ADMIT_ETCD"
	envKubectl       = "ADMIT_KUBECTL"
	envCacheDir      = "ADMIT_CACHE_DIR"
)

const installHint = "run `make tools` (hack/ensure-tools.sh) to install etcd and build kube-apiserver"

// binaryFinder locates the programs testenv runs. Its fields are the process environment,
// injected so that tests can fake it.
type binaryFinder struct {
	getenv   func(string) string
	lookPath func(string) (string, error)
	workDir  string // where the search for the module's .cache starts
}

func defaultBinaryFinder() (binaryFinder, error) {
	wd, err := os.Getwd()
	if err != nil {
		return binaryFinder{}, fmt.Errorf("finding binaries: %w", err)
	}
	return binaryFinder{getenv: os.Getenv, lookPath: exec.LookPath, workDir: wd}, nil
}

// kubeAPIServer returns the kube-apiserver to run: the one named by ADMIT_KUBE_APISERVER,
// else the one `make tools` caches.
func (f binaryFinder) kubeAPIServer() (string, error) {
	if p := f.getenv(envKubeAPIServer); p != "" {
		return checkExecutable(p, envKubeAPIServer+"="+p)
	}
	var candidates []string
	if cache := f.getenv(envCacheDir); cache != "" {
		candidates = append(candidates, filepath.Join(cache, "bin", "kube-apiserver"))
	}
	if root, ok := moduleRoot(f.workDir); ok {
		candidates = append(candidates, filepath.Join(root, ".cache", "bin", "kube-apiserver"))
	}
	for _, c := range candidates {
		if p, err := checkExecutable(c, c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("kube-apiserver not found (looked at $%s, %v); %s", envKubeAPIServer, candidates, installHint)
}

// onPath returns the program named by the environment variable, else name found on PATH.
func (f binaryFinder) onPath(name, envVar string) (string, error) {
	if p := f.getenv(envVar); p != "" {
		return checkExecutable(p, envVar+"="+p)
	}
	p, err := f.lookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH and $%s is not set; %s", name, envVar, installHint)
	}
	return p, nil
}

func checkExecutable(path, origin string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w; %s", origin, err, installHint)
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s: not an executable file; %s", origin, installHint)
	}
	return path, nil
}

// moduleRoot returns the nearest directory at or above dir that holds a go.mod.
func moduleRoot(dir string) (string, bool) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
