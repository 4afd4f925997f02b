//go:build !linux

package testenv

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// childProcAttr returns nil: process groups and parent-death signals are Linux-only here,
// so on other systems an aborted test run may leave the processes running.
func childProcAttr() *syscall.SysProcAttr { return nil }

func terminateGroup(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

func killGroup(p *os.Process) error { return p.Kill() }

func cpuTime(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("the CPU time of process %d: only read on Linux", pid)
}
