package chain

import (
	"log/slog"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// TestMain routes klog, which the Kubernetes code under review logs through, as cmd/admit does:
// warnings and errors reach the test's output, the plugins' chatter does not.
func TestMain(m *testing.M) {
	klog.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	os.Exit(m.Run())
}
