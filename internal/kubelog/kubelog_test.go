package kubelog

import (
	"bytes"
	"errors"
	"log/slog"
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
