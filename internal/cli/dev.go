package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/devsession"
)

// Environment variables `admit dev` gives COMMAND.
const (
	envDevCertDir = "ADMIT_DEV_CERT_DIR"
	envDevAddr    = "ADMIT_DEV_ADDR"
	envDevURL     = "ADMIT_DEV_URL"
)

type devOptions struct {
	kubeconfig string
	context    string
	webhooks   []string
	host       string
	port       int
	certDir    string
	prefix     string
	cleanup    bool
	grace      time.Duration
}

func newDevCommand(streams Streams) *cobra.Command {
	o := &devOptions{}
	cmd := &cobra.Command{
		Use:   "dev --webhooks CONFIG.yaml... [--kubeconfig FILE] [-- COMMAND [ARGS...]]",
		Short: "Point a cluster's webhooks at a server on this machine while you develop it",
		Long: `Run your webhook server on this machine against a real cluster, without hand-made certificates,
URL configurations or clean-up:

  1. a CA and a serving certificate for --host are written to a directory (ADMIT_DEV_CERT_DIR);
  2. each webhook configuration is copied under the name prefix, its clientConfig rewritten to
     https://HOST:PORT<service path>, the CA injected, and applied with the label
     app.kubernetes.io/managed-by=admit-dev;
  3. COMMAND runs with ADMIT_DEV_CERT_DIR, ADMIT_DEV_ADDR and ADMIT_DEV_URL set (without COMMAND,
     admit dev waits until interrupted while you start the server yourself);
  4. when COMMAND ends, or on Ctrl-C or SIGTERM, every configuration it applied is deleted.

The cluster must be able to reach HOST:PORT. If admit dev is killed before it cleans up,
"admit dev --cleanup" deletes whatever any session left behind.
The exit code is COMMAND's when it ends by itself, 0 after an interrupt.`,
		Example: `  # a kind or minikube cluster (~/.kube/config) reaching this machine; the server reads its certificate from $ADMIT_DEV_CERT_DIR
  admit dev --webhooks config/webhook/manifests.yaml --host 172.17.0.1 -- go run ./cmd/webhook

  # remove leftovers of an interrupted session
  admit dev --cleanup`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), streams, args, cmd.ArgsLenAtDash())
		},
	}
	f := cmd.Flags()
	onceStringVar(f, &o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default: $KUBECONFIG, then ~/.kube/config, as kubectl)")
	f.StringVar(&o.context, "context", "", "the kubeconfig context to use (default: its current context)")
	f.StringSliceVar(&o.webhooks, "webhooks", nil, "webhook configuration files or directories (repeatable)")
	f.StringVar(&o.host, "host", "127.0.0.1", "address or name the cluster reaches this machine at")
	f.IntVar(&o.port, "port", 9443, "port your webhook server listens on")
	onceStringVar(f, &o.certDir, "cert-dir", "", "directory for the CA, certificate and key (default: a temporary one, removed on exit)")
	f.StringVar(&o.prefix, "name-prefix", "admit-dev-", "prefix of the applied configurations' names")
	f.BoolVar(&o.cleanup, "cleanup", false, "only delete configurations left by earlier admit dev sessions, then exit")
	f.DurationVar(&o.grace, "grace-period", 10*time.Second, "how long COMMAND gets to exit after SIGTERM")
	return cmd
}

func (o *devOptions) run(ctx context.Context, streams Streams, args []string, dash int) error {
	if dash > 0 {
		return badInput(fmt.Errorf("unexpected arguments before --: %s", strings.Join(args[:dash], " ")))
	}
	rc, _, err := restConfig(o.kubeconfig, o.context)
	if err != nil {
		return badInput(err)
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return badInput(err)
	}
	// Reach the cluster before changing anything, so that an unreachable one is reported as
	// such, not as a failed clean-up.
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("reaching the cluster at %s: %w", rc.Host, err)}
	}
	if o.cleanup {
		n, err := devsession.DeleteAll(context.WithoutCancel(ctx), client)
		fmt.Fprintf(streams.Err, "admit: deleted %d webhook configurations left by earlier sessions\n", n)
		return err
	}
	set, err := o.loadWebhooks()
	if err != nil {
		return badInput(err)
	}
	certDir, removeCertDir, err := o.writeCertificates()
	if err != nil {
		return err
	}
	defer removeCertDir()
	caPEM, err := os.ReadFile(certDir + "/" + certs.CAFileName)
	if err != nil {
		return err
	}

	session := devsession.Session{ID: strconv.FormatInt(time.Now().UnixNano(), 36), Prefix: o.prefix, CABundle: caPEM,
		Base: url.URL{Scheme: "https", Host: net.JoinHostPort(o.host, strconv.Itoa(o.port))}}
	base := session.Base
	mutating, validating := session.Rewrite(set)

	// Clean up with a context of its own: the run's context is cancelled by the very signal
	// that asks for the clean-up.
	cleanup := func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		n, err := devsession.Delete(cctx, client, session.ID)
		if err != nil {
			fmt.Fprintf(streams.Err, "admit: cleaning up: %v (run admit dev --cleanup)\n", err)
			return
		}
		fmt.Fprintf(streams.Err, "admit: deleted %d webhook configurations\n", n)
	}
	defer cleanup()
	applied, err := devsession.Apply(ctx, client, mutating, validating)
	for _, name := range applied {
		fmt.Fprintf(streams.Err, "admit: applied %s\n", name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(streams.Err, "admit: webhooks now call %s; certificates in %s\n", base.String(), certDir)

	if len(args) == 0 {
		fmt.Fprintln(streams.Err, "admit: waiting; press Ctrl-C to remove the configurations")
		<-ctx.Done()
		return nil
	}
	return o.runCommand(ctx, streams, args, certDir, base)
}

// loadWebhooks reads and checks the configurations --webhooks names.
func (o *devOptions) loadWebhooks() (*config.Set, error) {
	if len(o.webhooks) == 0 {
		return nil, errors.New("--webhooks is required")
	}
	if o.port < 1 || o.port > 65535 {
		return nil, fmt.Errorf("--port %d is not a TCP port", o.port)
	}
	set, err := config.Load(config.Options{}, o.webhooks...)
	if err != nil {
		return nil, err
	}
	if _, err := set.Validate(); err != nil {
		return nil, err
	}
	if len(set.Mutating)+len(set.Validating) == 0 {
		return nil, fmt.Errorf("no webhook configurations in %s", strings.Join(o.webhooks, ", "))
	}
	return set, nil
}

// writeCertificates creates a CA and a serving certificate for the host in the cert directory.
func (o *devOptions) writeCertificates() (string, func(), error) {
	dir, remove := o.certDir, func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "admit-dev-")
		if err != nil {
			return "", nil, err
		}
		dir, remove = tmp, func() { os.RemoveAll(tmp) }
	}
	ca, err := certs.NewCA("admit dev", 7*24*time.Hour)
	if err != nil {
		remove()
		return "", nil, err
	}
	opts := certs.ServingOptions{ValidFor: 7 * 24 * time.Hour}
	if ip := net.ParseIP(o.host); ip != nil {
		opts.IPs = []net.IP{ip}
	} else {
		opts.DNSNames = []string{o.host}
	}
	kp, err := ca.IssueServing(opts)
	if err != nil {
		remove()
		return "", nil, badInput(err)
	}
	if err := certs.WriteFiles(dir, ca, kp); err != nil {
		remove()
		return "", nil, err
	}
	return dir, remove, nil
}

// runCommand runs COMMAND with the dev environment; on cancellation it asks COMMAND to stop with
// SIGTERM and kills it after the grace period. COMMAND's exit code becomes admit dev's.
func (o *devOptions) runCommand(ctx context.Context, streams Streams, args []string, certDir string, base url.URL) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = streams.In, streams.Out, streams.Err
	cmd.Env = append(os.Environ(),
		envDevCertDir+"="+certDir,
		envDevAddr+"="+net.JoinHostPort(o.host, strconv.Itoa(o.port)),
		envDevURL+"="+base.String(),
	)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return badInput(fmt.Errorf("starting %s: %w", args[0], err))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case err = <-done:
		case <-time.After(o.grace):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			err = <-done
		}
	}
	if ctx.Err() != nil {
		// We asked COMMAND to stop: the session ended as the user wanted.
		return nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code := exit.ExitCode()
		if code < 0 {
			code = 1 // killed by a signal
		}
		return &exitError{code: code, err: fmt.Errorf("%s exited: %w", args[0], err)}
	}
	return err
}
