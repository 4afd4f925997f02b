package reliability

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/admitkit/admit/test/reliability/loadgen"
)

// reloadPromise is how soon after a Secret volume swap admit serve must present the new
// certificate on new connections.
const reloadPromise = 10 * time.Second

// certificateRotationUnderLoad loads admit serve at a fixed rate while its serving
// certificate is rotated halfway the way a Secret volume does it (atomic ..data symlink swap).
// Promise: no request fails — connections keep being opened throughout, so handshakes straddle
// the swap — and new handshakes present the new certificate within 10 s.
func certificateRotationUnderLoad(t *testing.T, m *measurements) {
	p := currentProfile()
	pki := newServingPKI(t)
	renewed := issueServing(t, pki.ca) // same CA, as cert-manager renews: caBundle stays valid
	volume := newSecretVolume(t, pki.files(pki.serving))
	server := startServe(t, volume.dir)
	url := "https://" + server.addr + mirroredPodPath

	served := servedBy{counts: map[string]int{}}
	loadDone := make(chan *loadgen.Report, 1)
	go func() {
		report, err := loadgen.Run(context.Background(), loadgen.Options{
			NewRequest: func(seq int) (*http.Request, error) {
				return postReview(url, podReview(fmt.Sprintf("rotation-%d", seq), "nginx"))
			},
			Check: func(seq int, resp *http.Response, body []byte) error {
				served.add(resp.TLS)
				return checkMirrored(fmt.Sprintf("rotation-%d", seq), resp, body)
			},
			TLS: tlsConfig(pki.ca), Rate: p.rate, Duration: p.loadDuration,
			Connections: p.connections, RequestsPerConnection: p.requestsPerConn,
		})
		if err != nil {
			t.Error(err)
		}
		loadDone <- report
	}()

	time.Sleep(p.loadDuration / 2)
	if err := volume.update(pki.files(renewed)); err != nil {
		t.Fatal(err)
	}
	rotatedAt := time.Now()
	reloaded := waitForServingCertificate(server.addr, tlsConfig(pki.ca), serial(renewed.Certificate().SerialNumber.Text(16)), reloadPromise)
	if reloaded < 0 {
		t.Errorf("new handshakes still present the old certificate %s after the swap", reloadPromise)
	} else {
		m.Logf("new certificate served %s after the swap", reloaded.Round(time.Millisecond))
	}

	report := <-loadDone
	m.Logf("rotation %s into the run; load: %s", rotatedAt.Sub(report.Records[0].Due).Round(time.Millisecond), report)
	want := int(float64(p.rate) * p.loadDuration.Seconds())
	if got := report.Count(loadgen.OK); got != want || len(report.Records) != want {
		t.Errorf("%d of %d requests OK, want all %d: %q", got, len(report.Records), want, report.Errors(5))
	}
	before, after := served.get(serial(pki.serving.Certificate().SerialNumber.Text(16))), served.get(serial(renewed.Certificate().SerialNumber.Text(16)))
	m.Logf("answers on the old certificate: %d, on the new one: %d", before, after)
	if before == 0 || after == 0 {
		t.Errorf("answers on the old certificate: %d, on the new one: %d; want both, the load must straddle the rotation", before, after)
	}
}

// serial is a certificate serial number in hex.
type serial string

// servedBy counts answers by the serial of the certificate the connection presented.
type servedBy struct {
	mu     sync.Mutex
	counts map[string]int
}

func (s *servedBy) add(state *tls.ConnectionState) {
	if state == nil || len(state.PeerCertificates) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[state.PeerCertificates[0].SerialNumber.Text(16)]++
}

func (s *servedBy) get(sn serial) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[string(sn)]
}

// waitForServingCertificate opens a new TLS connection to addr every 20 ms until one presents the
// certificate with serial want, and returns how long that took, or -1 after limit.
func waitForServingCertificate(addr string, config *tls.Config, want serial, limit time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) <= limit {
		dialer := &tls.Dialer{NetDialer: &net.Dialer{Timeout: time.Second}, Config: config}
		conn, err := dialer.Dial("tcp", addr)
		if err == nil {
			state := conn.(*tls.Conn).ConnectionState()
			conn.Close()
			if serial(state.PeerCertificates[0].SerialNumber.Text(16)) == want {
				return time.Since(start)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return -1
}
