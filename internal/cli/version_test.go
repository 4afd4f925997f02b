package cli

import (
	"bytes"
	"context"
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
