package testenv

import (
	"os"
	"syscall"
)

// childProcAttr puts the child in its own process group (so signals meant for the test
// binary's group, such as a terminal's Ctrl-C, do not reach it half-way through a test)
// and has the kernel kill it if the test binary dies.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func terminateGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGTERM) }

func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
