//go:build !linux

package testenv

import (
	"os"
	"syscall"
)

// childProcAttr returns nil: process groups and parent-death signals are Linux-only here,
// so on other systems an aborted test run may leave the processes running.
func childProcAttr() *syscall.SysProcAttr { return nil }

func terminateGroup(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

func killGroup(p *os.Process) error { return p.Kill() }
