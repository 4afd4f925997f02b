package loopback

import (
	"net"
	"testing"
	"time"

	"github.com/admitkit/admit/certs"
)

// Certs writes a serving certificate for 127.0.0.1, signed by a fresh CA named commonName and
// valid for an hour, into a temporary directory of tb under certs.WriteFiles' names; it returns
// the directory and the CA's certificate, for a caBundle.
func Certs(tb testing.TB, commonName string) (dir string, caPEM []byte) {
	tb.Helper()
	ca, err := certs.NewCA(commonName, time.Hour)
	if err != nil {
		tb.Fatal(err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		tb.Fatal(err)
	}
	dir = tb.TempDir()
	if err := certs.WriteFiles(dir, ca, kp); err != nil {
		tb.Fatal(err)
	}
	return dir, ca.CertPEM()
}
