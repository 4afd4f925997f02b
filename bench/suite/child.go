package suite

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/admitkit/admit/bench/servers"
	"github.com/admitkit/admit/bench/usage"
)

// ChildArgs are the arguments the harness executable must accept to run ServeChild.
func ChildArgs(kind servers.Kind, certDir string) []string {
	return []string{"serve", "-server", string(kind), "-certs", certDir}
}

// ChildMain is the main function of a child started with ChildArgs (args without the leading
// "serve"): it serves until stdin closes or SIGTERM arrives, and returns the exit code.
func ChildMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("server", "", "server to run: "+fmt.Sprint(servers.Kinds()))
	certDir := fs.String("certs", "", "directory holding ca.crt, tls.crt and tls.key")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	k, err := servers.ParseKind(*kind)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		// The parent never writes; its end closing means it is done or gone.
		_, _ = io.Copy(io.Discard, stdin)
		stop()
	}()
	if err := ServeChild(ctx, k, *certDir, stdout); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// childAddresses is the one line a child prints on stdout once it serves.
type childAddresses struct {
	// URL is the server under test.
	URL string `json:"url"`
	// Control serves /usage and /debug/pprof/ over plain HTTP on loopback.
	Control string `json:"control"`
}

// ServeChild is the child side: it starts the server of the given kind, serves the process's
// usage and profiles on a control listener, writes both addresses as one JSON line to out, and
// serves until ctx is done.
func ServeChild(ctx context.Context, kind servers.Kind, certDir string, out io.Writer) error {
	running, err := servers.Start(ctx, kind, certDir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return errors.Join(fmt.Errorf("control listener: %w", err), running.Stop())
	}
	mux := http.NewServeMux()
	mux.Handle("/usage", usage.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	control := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = control.Serve(ln) }()
	defer control.Close()

	line, err := json.Marshal(childAddresses{URL: running.URL, Control: "http://" + ln.Addr().String()})
	if err != nil {
		return errors.Join(err, running.Stop())
	}
	if _, err := fmt.Fprintf(out, "%s\n", line); err != nil {
		return errors.Join(fmt.Errorf("announcing the addresses: %w", err), running.Stop())
	}
	<-ctx.Done()
	return running.Stop()
}

// child is the parent's handle on a server running in a child process.
type child struct {
	kind   servers.Kind
	addrs  childAddresses
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	exited chan error
	http   *http.Client
}

// startChild runs executable with ChildArgs and waits for the child's addresses. The child stops
// when its standard input closes, so it cannot outlive the harness.
func startChild(ctx context.Context, executable string, kind servers.Kind, certDir string) (*child, error) {
	cmd := exec.Command(executable, ChildArgs(kind, certDir)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &child{kind: kind, cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, exited: make(chan error, 1),
		http: &http.Client{Timeout: 60 * time.Second}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the %s child: %w", kind, err)
	}
	lines := make(chan []byte, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Bytes()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout) // keep the pipe drained
	}()
	go func() { c.exited <- cmd.Wait() }()

	select {
	case line, ok := <-lines:
		if !ok {
			return nil, errors.Join(fmt.Errorf("the %s child exited before serving: %s", kind, c.stderr), c.stop())
		}
		if err := json.Unmarshal(line, &c.addrs); err != nil {
			return nil, errors.Join(fmt.Errorf("the %s child announced %q: %w", kind, line, err), c.stop())
		}
		return c, nil
	case <-time.After(30 * time.Second):
		return nil, errors.Join(fmt.Errorf("the %s child did not serve within 30s: %s", kind, c.stderr), c.stop())
	case <-ctx.Done():
		return nil, errors.Join(ctx.Err(), c.stop())
	}
}

// usage reads the child's consumption so far.
func (c *child) usage(ctx context.Context) (usage.Sample, error) {
	return usage.Fetch(ctx, c.http, c.addrs.Control+"/usage")
}

// profile records a CPU profile of the child for the given time and writes it to path.
func (c *child) profile(ctx context.Context, d time.Duration, path string) error {
	url := c.addrs.Control + "/debug/pprof/profile?seconds=" + strconv.Itoa(max(1, int(d.Seconds())))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("profiling the %s child: %w", c.kind, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profiling the %s child: HTTP %d", c.kind, resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// stop closes the child's standard input, which makes it drain and exit, and kills it if it has
// not exited after ten seconds.
func (c *child) stop() error {
	c.stdin.Close()
	select {
	case err := <-c.exited:
		if err != nil {
			return fmt.Errorf("the %s child: %w: %s", c.kind, err, c.stderr)
		}
		return nil
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
		return fmt.Errorf("the %s child did not exit within 10s of its input closing and was killed: %s", c.kind, c.stderr)
	}
}

// lockedBuffer collects a child's standard error; exec writes it from another goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 64<<10 {
		return len(p), nil // enough to explain a failure; drop the rest
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
