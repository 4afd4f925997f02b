package testbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildTakesTheBinaryTheEnvironmentNames(t *testing.T) {
	dir := t.TempDir()
	executable := filepath.Join(dir, "admit")
	plain := filepath.Join(dir, "plain")
	for path, mode := range map[string]os.FileMode{executable: 0o755, plain: 0o644} {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		env     string
		want    string
		wantErr string
	}{
		{name: "an executable", env: executable, want: executable},
		{name: "missing", env: filepath.Join(dir, "missing"), wantErr: "no such file"},
		{name: "not executable", env: plain, wantErr: "not an executable file"},
		{name: "a directory", env: dir, wantErr: "not an executable file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(key string) string {
				if key == Admit().Env {
					return tt.env
				}
				return ""
			}
			// A go tool that cannot run proves that no build is attempted.
			bin, err := Admit().build(getenv, filepath.Join(dir, "no-go-here"), dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if bin.Path != tt.want {
				t.Errorf("Path = %q, want %q", bin.Path, tt.want)
			}
			if err := bin.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tt.want); err != nil {
				t.Errorf("Close removed a binary it did not build: %v", err)
			}
		})
	}
}

func TestBuildReportsAFailedBuild(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	_, err = ContribLabeller().build(func(string) string { return "" }, filepath.Join(t.TempDir(), "no-go-here"), wd)
	if err == nil || !strings.Contains(err.Error(), "go build ./example/labeller in ") || !strings.Contains(err.Error(), filepath.Join("contrib", "controllerruntime")) {
		t.Fatalf("err = %v, want the failed build and its module named", err)
	}
}
