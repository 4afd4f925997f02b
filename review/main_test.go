package review

import (
	"os"
	"testing"

	"github.com/admitkit/admit/kubelog"
)

func TestMain(m *testing.M) {
	// Kubernetes' code logs through klog: its errors on stderr, its chatter nowhere.
	kubelog.Route(os.Stderr)
	os.Exit(m.Run())
}
