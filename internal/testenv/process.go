package testenv

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// process is a child program whose output goes to a log file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process has exited
	waitErr error         // how it exited; read only after exited is closed
}

// startProcess runs path with args, appending its stdout and stderr to logPath.
func startProcess(name, path string, args []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = childProcAttr()
	p := &process{name: name, logPath: logPath, cmd: cmd, exited: make(chan struct{})}

	started := make(chan error, 1)
	go func() {
		// Pdeathsig is delivered when the *thread* that forked the child exits, and the Go
		// runtime retires threads as it likes. Pinning this goroutine to its thread and
		// keeping it in Wait for the child's whole life makes the signal fire only when the
		// test binary itself dies. The thread is discarded when the goroutine returns.
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			logFile.Close()
			started <- err
			return
		}
		started <- nil
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", name, path, err)
	}
	return p, nil
}

// hasExited reports whether the process has exited, and how.
func (p *process) hasExited() (bool, error) {
	select {
	case <-p.exited:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// stop asks the process to terminate, and kills it if it is still running after grace.
func (p *process) stop(grace time.Duration) error {
	if exited, _ := p.hasExited(); exited {
		return nil
	}
	if err := terminateGroup(p.cmd.Process); err == nil {
		select {
		case <-p.exited:
			return nil
		case <-time.After(grace):
		}
	}
	if err := killGroup(p.cmd.Process); err != nil {
		return fmt.Errorf("killing %s (pid %d): %w", p.name, p.cmd.Process.Pid, err)
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("%s (pid %d) still running after SIGKILL", p.name, p.cmd.Process.Pid)
	}
}

// logTail returns the last lines of the process's log, for error messages.
func (p *process) logTail(lines int) string {
	return fileTail(p.logPath, lines)
}

// fileTail returns at most the last n lines of the file at path (read from its last 64 KiB).
func fileTail(path string, n int) string {
	const maxRead = 64 << 10
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > maxRead {
		if _, err := f.Seek(-maxRead, io.SeekEnd); err != nil {
			return fmt.Sprintf("(cannot read %s: %v)", path, err)
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	all := strings.Split(string(bytes.TrimRight(data, "\n")), "\n")
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return strings.Join(all, "\n")
}

// cpu is the CPU time the process has used so far.
func (p *process) cpu() (time.Duration, error) {
	d, err := cpuTime(p.cmd.Process.Pid)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", p.name, err)
	}
	return d, nil
}
