package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionPrintsVersionAndPlatform(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"version"}, Streams{Out: &out, Err: &errOut})
	if code != ExitOK {
		t.Fatalf("exit code = %d, want 0; stderr: %s", code, errOut.String())
	}
	if got := out.String(); !strings.HasPrefix(got, "admit ") || !strings.Contains(got, "go1.") {
		t.Fatalf("version output = %q, want 'admit <version> go1.x os/arch'", got)
	}
}

func TestVersionJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"version", "-o", "json"}, Streams{Out: &out, Err: &errOut}); code != ExitOK {
		t.Fatalf("exit code = %d, want 0; stderr: %s", code, errOut.String())
	}
	var v versionInfo
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("decoding %q: %v", out.String(), err)
	}
	if v.Version == "" || !strings.HasPrefix(v.GoVersion, "go1.") || !strings.Contains(v.Platform, "/") {
		t.Errorf("version -o json = %+v", v)
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"a released module", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"a checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}}, "devel+0123456789ab"},
		{"a checkout with changes", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "devel+0123456789ab-dirty"},
		{"no version control", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionFrom(&tt.info); got != tt.want {
				t.Errorf("versionFrom = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnknownCommandIsBadInput(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"no-such-command"}, Streams{Out: &out, Err: &errOut})
	if code != ExitBadInput {
		t.Fatalf("exit code = %d, want %d", code, ExitBadInput)
	}
	if !strings.Contains(errOut.String(), "unknown command") {
		t.Fatalf("stderr = %q, want it to name the unknown command", errOut.String())
	}
}
