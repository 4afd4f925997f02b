package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeExecutable(t *testing.T, path string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestKubeAPIServerLookup(t *testing.T) {
	module := t.TempDir()
	if err := os.WriteFile(filepath.Join(module, "go.mod"), []byte("module example.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	packageDir := filepath.Join(module, "test", "e2e")
	if err := os.MkdirAll(packageDir, 0o755); err != nil {
		t.Fatal(err)
	}
	moduleCache := writeExecutable(t, filepath.Join(module, ".cache", "bin", "kube-apiserver"), 0o755)
	explicit := writeExecutable(t, filepath.Join(t.TempDir(), "my-apiserver"), 0o755)
	notExecutable := writeExecutable(t, filepath.Join(t.TempDir(), "kube-apiserver"), 0o644)
	cacheDir := t.TempDir()
	fromCacheDir := writeExecutable(t, filepath.Join(cacheDir, "bin", "kube-apiserver"), 0o755)
	noModule := t.TempDir()

	tests := []struct {
		name    string
		env     map[string]string
		workDir string
		want    string
		wantErr []string
	}{
		{name: "module .cache found from a package directory", workDir: packageDir, want: moduleCache},
		{name: "ADMIT_KUBE_APISERVER wins", env: map[string]string{envKubeAPIServer: explicit}, workDir: packageDir, want: explicit},
		{name: "ADMIT_CACHE_DIR before the module cache", env: map[string]string{envCacheDir: cacheDir}, workDir: packageDir, want: fromCacheDir},
		{
			name: "ADMIT_KUBE_APISERVER missing", env: map[string]string{envKubeAPIServer: "/no/such/apiserver"}, workDir: packageDir,
			wantErr: []string{"ADMIT_KUBE_APISERVER=/no/such/apiserver", "no such file", "make tools"},
		},
		{
			name: "ADMIT_KUBE_APISERVER not executable", env: map[string]string{envKubeAPIServer: notExecutable}, workDir: packageDir,
			wantErr: []string{"not an executable file", "make tools"},
		},
		{name: "nothing anywhere", workDir: noModule, wantErr: []string{"kube-apiserver not found", "make tools"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			finder := binaryFinder{getenv: func(k string) string { return tt.env[k] }, workDir: tt.workDir}
			got, err := finder.kubeAPIServer()
			checkLookup(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestOnPathLookup(t *testing.T) {
	explicit := writeExecutable(t, filepath.Join(t.TempDir(), "etcd"), 0o755)
	onPath := func(name string) (string, error) {
		if name == "etcd" {
			return "/usr/bin/etcd", nil
		}
		return "", errors.New("not found")
	}
	tests := []struct {
		name    string
		env     map[string]string
		program string
		want    string
		wantErr []string
	}{
		{name: "from PATH", program: "etcd", want: "/usr/bin/etcd"},
		{name: "environment variable wins", program: "etcd", env: map[string]string{envEtcd: explicit}, want: explicit},
		{name: "missing", program: "kubectl", wantErr: []string{"kubectl not found on PATH", "$ADMIT_KUBECTL", "make tools"}},
	}
	envVars := map[string]string{"etcd": envEtcd, "kubectl": envKubectl}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			finder := binaryFinder{getenv: func(k string) string { return tt.env[k] }, lookPath: onPath}
			got, err := finder.onPath(tt.program, envVars[tt.program])
			checkLookup(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func checkLookup(t *testing.T, got string, err error, want string, wantErr []string) {
	t.Helper()
	if wantErr != nil {
		if err == nil {
			t.Fatalf("found %q, want an error", got)
		}
		for _, part := range wantErr {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not contain %q", err, part)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("lookup: %v", err)
	}
	if got != want {
		t.Errorf("found %q, want %q", got, want)
	}
}
