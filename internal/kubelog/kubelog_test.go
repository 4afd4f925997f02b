package kubelog

import (
	"bytes"
	"strings"
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
