package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCertsCreateKeepsTheCA: a second `certs create` into a directory with a CA refuses to
// replace it (every caBundle made from it would break), renewing under it works, --force
// replaces it.
func TestCertsCreateKeepsTheCA(t *testing.T) {
	dir := t.TempDir()
	caKey := filepath.Join(dir, "ca.key")
	run := func(args ...string) (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := Run(context.Background(), append([]string{"certs", "create", "--host", "admit.admit-system.svc", "--out", dir}, args...), Streams{Out: &out, Err: &errOut})
		return code, errOut.String()
	}
	readCA := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if code, stderr := run("--ca-key-out", caKey); code != ExitOK {
		t.Fatalf("first create: exit code %d: %s", code, stderr)
	}
	first := readCA()

	code, stderr := run()
	if code != ExitBadInput || !strings.Contains(stderr, "ca.crt exists: a new CA would break every caBundle made from it") ||
		!strings.Contains(stderr, "FILE the CA's key that --ca-key-out kept when the CA was made") {
		t.Errorf("second create: exit code %d, stderr %q; want %d and the CA kept", code, stderr, ExitBadInput)
	}
	if readCA() != first {
		t.Fatal("the second create replaced the CA")
	}
	if code, stderr := run("--ca-cert", filepath.Join(dir, "ca.crt"), "--ca-key", caKey); code != ExitOK || readCA() != first {
		t.Errorf("renewal under the CA: exit code %d (%s), CA kept: %v", code, stderr, readCA() == first)
	}
	if code, stderr := run("--ca-key-out", caKey, "--force"); code != ExitOK || readCA() == first {
		t.Errorf("--force: exit code %d (%s), CA replaced: %v", code, stderr, readCA() != first)
	}
}
