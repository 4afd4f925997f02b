package reliability

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/admitkit/admit/test/reliability/loadgen"
)

// drainOnSIGTERM sends SIGTERM to a loaded admit serve with requests in flight.
// Promises: /readyz fails before the listener closes; requests keep being served during the
// drain delay, none refused; every request in flight completes, even one whose body arrives after
// the listener has closed, and so does a request sent after that on a connection accepted before
// (no accepted connection loses its request); a request still unfinished when the grace period
// ends is cut off, admit serve then exits with code 1, and nothing is accepted after that.
func drainOnSIGTERM(t *testing.T, m *measurements) {
	p := currentProfile()
	pki := newServingPKI(t)
	volume := newSecretVolume(t, pki.files(pki.serving))
	server := startServe(t, volume.dir, "--drain-delay", p.drainDelay.String(), "--grace-period", p.gracePeriod.String())
	config := tlsConfig(pki.ca)
	url := "https://" + server.addr + mirroredPodPath

	inFlight := make([]*heldRequest, p.inFlight)
	for i := range inFlight {
		inFlight[i] = holdRequest(t, server.addr, config, podReview(fmt.Sprintf("held-%d", i), "nginx"))
	}
	straggler := holdRequest(t, server.addr, config, podReview("straggler", "nginx"))

	// One connection per request, as after a drain every client must reconnect: a request either
	// gets a connection (and must then be answered) or is refused.
	loadCtx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	loadDone := make(chan *loadgen.Report, 1)
	go func() {
		report, err := loadgen.Run(loadCtx, loadgen.Options{
			NewRequest: func(seq int) (*http.Request, error) {
				return postReview(url, podReview(fmt.Sprintf("drain-%d", seq), "nginx"))
			},
			Check: func(seq int, resp *http.Response, body []byte) error {
				return checkMirrored(fmt.Sprintf("drain-%d", seq), resp, body)
			},
			TLS: config, Rate: p.drainRate, Duration: time.Hour, Connections: p.connections, RequestsPerConnection: 1,
			RequestTimeout: p.gracePeriod + p.drainDelay,
		})
		if err != nil {
			t.Error(err)
		}
		loadDone <- report
	}()
	time.Sleep(500 * time.Millisecond) // serve some load before the signal

	readiness := watchReadiness(server)
	sigtermAt := time.Now()
	server.signal(t, syscall.SIGTERM)
	notReadyAt := readiness.wait(t, p.drainDelay+10*time.Second)
	// The server is in its drain delay now, so the listener is open: a client that connects now
	// and sends its request only after the listener closed, as a request on its way at that
	// moment does, must be answered. (A drain closes a connection that has sent nothing for a
	// second after the close: kube-apiserver keeps such connections open.)
	late, err := holdConnection(server.addr, config, podReview("late", "nginx"))
	if err != nil {
		t.Errorf("connecting %s after SIGTERM, during the %s drain delay: %v", time.Since(sigtermAt).Round(time.Millisecond), p.drainDelay, err)
	}
	var refusedAt time.Time
	waitFor(t, p.drainDelay+10*time.Second, "the listener to close", func() error {
		conn, err := net.DialTimeout("tcp", server.addr, time.Second)
		if err == nil {
			conn.Close()
			return errors.New("still accepting connections")
		}
		refusedAt = time.Now()
		return nil
	})
	if late != nil {
		if err := late.finish("late"); err != nil {
			t.Errorf("request sent just after the listener closed, on a connection accepted during the drain delay: %v", err)
		}
		late.conn.Close()
	}
	m.Logf("after SIGTERM: /readyz failed at %s, the listener refused connections at %s",
		notReadyAt.Sub(sigtermAt).Round(time.Millisecond), refusedAt.Sub(sigtermAt).Round(time.Millisecond))
	if !notReadyAt.Before(refusedAt) {
		t.Errorf("/readyz failed at %s, after the listener closed at %s: readiness must drop first", notReadyAt, refusedAt)
	}
	if refusedAt.Before(sigtermAt.Add(p.drainDelay)) {
		t.Errorf("the listener refused connections %s after SIGTERM, before the %s drain delay ended", refusedAt.Sub(sigtermAt).Round(time.Millisecond), p.drainDelay)
	}

	// The listener is closed; the requests in flight finish now, within the grace period.
	completed := 0
	for i, held := range inFlight {
		if err := held.finish(fmt.Sprintf("held-%d", i)); err != nil {
			t.Errorf("request %d in flight at SIGTERM: %v", i, err)
			continue
		}
		completed++
	}
	m.Logf("%d of %d requests in flight at SIGTERM completed after the listener closed", completed, len(inFlight))
	select {
	case <-server.exited:
	case <-time.After(p.gracePeriod + 30*time.Second):
		t.Fatalf("admit serve still runs %s after SIGTERM", time.Since(sigtermAt).Round(time.Second))
	}
	stopLoad()
	report := <-loadDone
	exitedAt := time.Now()
	m.Logf("admit serve exited with code %d, %s after SIGTERM; load: %s", server.exitCode, exitedAt.Sub(sigtermAt).Round(time.Millisecond), report)
	// The straggler was cut off: a runtime failure (1), not bad input (2) nor a clean drain (0).
	if server.exitCode != 1 {
		t.Errorf("admit serve exited with code %d after cutting off a request at the end of the grace period; want 1", server.exitCode)
	}
	if exitedAt.Sub(sigtermAt) < p.drainDelay+p.gracePeriod {
		t.Errorf("admit serve exited %s after SIGTERM, before the drain delay and the grace period (%s) were over, with a request in flight",
			exitedAt.Sub(sigtermAt).Round(time.Millisecond), p.drainDelay+p.gracePeriod)
	}

	if err := straggler.finish("straggler"); err == nil {
		t.Errorf("a request whose body never arrived was answered after the grace period; want it cut off")
	}
	if !strings.Contains(server.logs.String(), "grace period were cut off") {
		t.Errorf("the log does not say that a request was cut off after the grace period:\n%s", server.logs)
	}
	if conn, err := net.DialTimeout("tcp", server.addr, time.Second); err == nil {
		conn.Close()
		t.Errorf("a connection was accepted after the grace period")
	}

	// The listener closes no earlier than the drain delay after SIGTERM. A connection started
	// just before may still be refused: the kernel queues it and resets it when the listener
	// closes, before admit serve could accept it. Earlier than this margin, none may be.
	const acceptLag = 250 * time.Millisecond
	servedDuringDrain, refusedAtTheClose := 0, 0
	for _, rec := range report.Records {
		switch rec.Outcome {
		case loadgen.OK:
			if rec.Sent.After(sigtermAt) {
				servedDuringDrain++
			}
		case loadgen.Rejected:
			t.Errorf("request %d, sent %s after SIGTERM, was answered wrongly: %v", rec.Seq, rec.Sent.Sub(sigtermAt).Round(time.Millisecond), rec.Err)
		case loadgen.NotConnected:
			switch {
			case rec.Sent.Before(sigtermAt.Add(p.drainDelay - acceptLag)):
				t.Errorf("request %d was refused; it was sent %s after SIGTERM, during the %s drain delay: %v",
					rec.Seq, rec.Sent.Sub(sigtermAt).Round(time.Millisecond), p.drainDelay, rec.Err)
			case rec.Sent.Before(refusedAt):
				refusedAtTheClose++
			}
		case loadgen.Broken:
			// Every request had its own connection: one that connected was accepted, and its
			// request must be answered, whenever it was written.
			written := "never written"
			if !rec.Written.IsZero() {
				written = fmt.Sprintf("written %s after SIGTERM", rec.Written.Sub(sigtermAt).Round(time.Millisecond))
			}
			t.Errorf("request %d, connected %s after SIGTERM and %s, was lost %s after SIGTERM: %v", rec.Seq,
				rec.Connected.Sub(sigtermAt).Round(time.Millisecond), written, rec.Due.Add(rec.Latency).Sub(sigtermAt).Round(time.Millisecond), rec.Err)
		}
	}
	m.Logf("%d requests served during the drain; %d refused as the listener closed", servedDuringDrain, refusedAtTheClose)
	if servedDuringDrain == 0 {
		t.Errorf("no request was served between SIGTERM and the end of the drain delay; want the server to keep serving")
	}
}

// heldRequest is an admission request kept waiting on an open connection: the rest of it is sent
// only when finish is called.
type heldRequest struct {
	conn   *tls.Conn
	reader *bufio.Reader
	// unsent is what finish sends: the body, or the whole request.
	unsent []byte
}

// holdRequest sends the headers of a review with "Expect: 100-continue". net/http answers
// "100 Continue" only once the handler reads the body, so when holdRequest returns the request
// is in the handler for sure, waiting for its body.
func holdRequest(t *testing.T, addr string, config *tls.Config, body []byte) *heldRequest {
	t.Helper()
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, config)
	if err != nil {
		t.Fatalf("connecting to hold a request: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
		mirroredPodPath, addr, len(body))
	if err != nil {
		t.Fatalf("sending the headers of a held request: %v", err)
	}
	reader := bufio.NewReader(conn)
	status, err := reader.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 100 ") {
		t.Fatalf("held request: want 100 Continue, got %q (%v)", status, err)
	}
	if blank, err := reader.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("held request: after 100 Continue, got %q (%v)", blank, err)
	}
	_ = conn.SetDeadline(time.Time{})
	return &heldRequest{conn: conn, reader: reader, unsent: body}
}

// holdConnection opens a connection and completes the TLS handshake; the review is sent, headers
// and body, only when finish is called. The caller closes the connection.
func holdConnection(addr string, config *tls.Config, body []byte) (*heldRequest, error) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, config)
	if err != nil {
		return nil, err
	}
	request := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		mirroredPodPath, addr, len(body), body)
	return &heldRequest{conn: conn, reader: bufio.NewReader(conn), unsent: []byte(request)}, nil
}

// finish sends the rest of the request and checks the answer.
func (h *heldRequest) finish(uid string) error {
	_ = h.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := h.conn.Write(h.unsent); err != nil {
		return fmt.Errorf("sending the rest of the request: %w", err)
	}
	resp, err := http.ReadResponse(h.reader, nil)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	return checkMirrored(uid, resp, body)
}

// readinessWatch polls /readyz until it stops answering 200.
type readinessWatch struct {
	notReady   chan struct{}
	notReadyAt time.Time
}

func watchReadiness(server *serveProcess) *readinessWatch {
	w := &readinessWatch{notReady: make(chan struct{})}
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			code, err := server.get("/readyz")
			if err != nil || code != http.StatusOK {
				w.notReadyAt = time.Now()
				close(w.notReady)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return w
}

// wait returns when readiness dropped, failing the test after limit.
func (w *readinessWatch) wait(t *testing.T, limit time.Duration) time.Time {
	t.Helper()
	select {
	case <-w.notReady:
		return w.notReadyAt
	case <-time.After(limit):
		t.Fatalf("/readyz still answers 200 %s after SIGTERM", limit)
		return time.Time{}
	}
}
