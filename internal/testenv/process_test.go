package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFileTail(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var long strings.Builder
	for i := range 20000 { // well over the 64 KiB read window
		fmt.Fprintf(&long, "line %d\n", i)
	}
	tests := []struct {
		name string
		path string
		n    int
		want string
	}{
		{name: "fewer lines than asked", path: write("short", "a\nb\n"), n: 5, want: "a\nb"},
		{name: "last lines only", path: write("five", "1\n2\n3\n4\n5\n"), n: 2, want: "4\n5"},
		{name: "no trailing newline", path: write("open", "x\ny"), n: 1, want: "y"},
		{name: "large file", path: write("long", long.String()), n: 2, want: "line 19998\nline 19999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fileTail(tt.path, tt.n); got != tt.want {
				t.Errorf("fileTail = %q, want %q", got, tt.want)
			}
		})
	}
	missing := filepath.Join(dir, "nope")
	if got := fileTail(missing, 3); !strings.HasPrefix(got, "(cannot read "+missing) {
		t.Errorf("fileTail of a missing file = %q, want it to say the file cannot be read", got)
	}
}

// waitForLogLine waits until the last line of p's log is line.
func waitForLogLine(t *testing.T, p *process, line string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.logTail(1) != line {
		if time.Now().After(deadline) {
			t.Fatalf("%s never logged %q; log:\n%s", p.name, line, p.logTail(10))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProcessStopTerminatesAndReportsExit(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "sleep.log")
	p, err := startProcess("sleeper", "/bin/sh", []string{"-c", "echo started; exec sleep 60"}, logPath)
	if err != nil {
		t.Fatalf("startProcess: %v", err)
	}
	waitForLogLine(t, p, "started") // also proves output reaches the log file
	if exited, how := p.hasExited(); exited {
		t.Fatalf("process exited early (%v)", how)
	}
	if err := p.stop(10 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
	exited, how := p.hasExited()
	if !exited || how == nil || !strings.Contains(how.Error(), "terminated") {
		t.Errorf("after stop: exited=%v how=%v, want exited by SIGTERM", exited, how)
	}
}

func TestProcessStopKillsWhatIgnoresSIGTERM(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "stubborn.log")
	p, err := startProcess("stubborn", "/bin/sh", []string{"-c", "trap '' TERM; echo ready; while :; do sleep 1; done"}, logPath)
	if err != nil {
		t.Fatalf("startProcess: %v", err)
	}
	// Stop before the trap is installed would end the shell by SIGTERM and prove nothing.
	waitForLogLine(t, p, "ready")
	if err := p.stop(100 * time.Millisecond); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if exited, how := p.hasExited(); !exited || how == nil || !strings.Contains(how.Error(), "killed") {
		t.Errorf("after stop: exited=%v how=%v, want killed", exited, how)
	}
}

func TestStartProcessReportsMissingBinary(t *testing.T) {
	_, err := startProcess("ghost", "/no/such/binary", nil, filepath.Join(t.TempDir(), "ghost.log"))
	if err == nil || !strings.Contains(err.Error(), "starting ghost (/no/such/binary)") {
		t.Fatalf("error = %v, want it to name the program and path", err)
	}
}

func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v: want three distinct positive ports", ports)
		}
		seen[p] = true
	}
}
