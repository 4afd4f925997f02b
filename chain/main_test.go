package chain

import (
	"os"
	"testing"

	"github.com/admitkit/admit/kubelog"
)

// TestMain routes klog, which the Kubernetes code under test logs through, as cmd/admit does.
func TestMain(m *testing.M) {
	kubelog.Route(os.Stderr)
	os.Exit(m.Run())
}
