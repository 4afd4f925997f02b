package kubelog

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"k8s.io/klog/v2"
)

func TestRoute(t *testing.T) {
	var out bytes.Buffer
	Route(&out)
	defer klog.ClearLogger()
	klog.Info("informer started")
	klog.Warning("quota evaluator lagging")
	klog.Error("cache sync failed")
	klog.Flush()
	got := out.String()
	for _, chatter := range []string{"informer started", "quota evaluator lagging"} {
		if strings.Contains(got, chatter) {
			t.Errorf("%q reached the writer:\n%s", chatter, got)
		}
	}
	if !strings.Contains(got, `level=ERROR msg="cache sync failed"`) {
		t.Errorf("the error did not reach the writer:\n%s", got)
	}
}

func TestRouteTo(t *testing.T) {
	var out bytes.Buffer
	RouteTo(slog.New(slog.NewJSONHandler(&out, nil)))
	defer klog.ClearLogger()
	klog.Info("informer started")
	klog.ErrorS(errors.New("watch closed"), "lease renewal failed", "lease", "admit")
	klog.Flush()
	got := out.String()
	if strings.Contains(got, "informer started") {
		t.Errorf("chatter reached the server's log:\n%s", got)
	}
	for _, want := range []string{`"level":"ERROR"`, `"msg":"lease renewal failed"`, `"lease":"admit"`, `"err":"watch closed"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the server's log lacks %s:\n%s", want, got)
		}
	}
}

// RouteTo after Route changes where klog's errors go while Kubernetes' code goes on logging
// (run with -race): klog's logger is not replaced under it.
func TestRouteToWhileLogging(t *testing.T) {
	var first, second lockedWriter
	Route(&first)
	defer klog.ClearLogger()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				klog.Info("chatter")
				klog.ErrorS(nil, "background error")
			}
		}
	}()
	RouteTo(slog.New(slog.NewTextHandler(&second, nil)))
	klog.ErrorS(nil, "after the switch", "component", "rotator")
	close(stop)
	<-done
	if got := second.String(); !strings.Contains(got, `msg="after the switch" component=rotator`) {
		t.Errorf("the new destination lacks the error:\n%s", got)
	}
	if strings.Contains(first.String(), "after the switch") {
		t.Errorf("the first destination got an error logged after the switch")
	}
}

// lockedWriter is a bytes.Buffer for concurrent writers.
type lockedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// Quiet leaves a route the program chose in place.
func TestQuietKeepsARoute(t *testing.T) {
	var out bytes.Buffer
	Route(&out)
	defer klog.ClearLogger()
	Quiet()
	klog.Error("cache sync failed")
	klog.Flush()
	if !strings.Contains(out.String(), "cache sync failed") {
		t.Errorf("after Quiet, the route's writer lacks the error:\n%s", out.String())
	}
}

// Unrouted, klog prints its informational lines on stderr; after Quiet it prints nothing. klog
// is process-wide, so the check runs in a process of its own.
func TestQuietSilencesKlog(t *testing.T) {
	if os.Getenv("KUBELOG_QUIET_CHILD") != "" {
		if os.Getenv("KUBELOG_QUIET_CHILD") == "quiet" {
			Quiet()
		}
		klog.Info("informer started")
		klog.Error("cache sync failed")
		klog.Flush()
		return
	}
	for _, mode := range []string{"loud", "quiet"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestQuietSilencesKlog$")
		cmd.Env = append(os.Environ(), "KUBELOG_QUIET_CHILD="+mode)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, stderr.String())
		}
		printed := strings.Contains(stderr.String(), "informer started")
		if printed != (mode == "loud") {
			t.Errorf("%s: klog's info line printed %v:\n%s", mode, printed, stderr.String())
		}
	}
}
