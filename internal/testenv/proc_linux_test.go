package testenv

import (
	"crypto/sha256"
	"os"
	"strings"
	"testing"
	"time"
)

// A process's CPU time grows with the work it does, as /proc counts it; a process that does
// not exist is an error.
func TestCPUTime(t *testing.T) {
	before, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(nil)
	for start := time.Now(); time.Since(start) < 200*time.Millisecond; {
		sum = sha256.Sum256(sum[:])
	}
	after, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := after - before; d < 100*time.Millisecond || d > 10*time.Second {
		t.Errorf("200ms of hashing took %v of CPU, as /proc counts it", d)
	}
	if _, err := cpuTime(1 << 30); err == nil || !strings.Contains(err.Error(), "/proc/1073741824/stat") {
		t.Errorf("a process that does not exist: %v", err)
	}
}
