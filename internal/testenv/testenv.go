package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	defaultStartTimeout = 60 * time.Second
	stopGracePeriod     = 10 * time.Second
	pollInterval        = 100 * time.Millisecond
	logTailLines        = 40
)

// Options tunes Start. The zero value is ready to use.
type Options struct {
	// Logf receives progress messages; nil discards them.
	Logf func(format string, args ...any)
	// StartTimeout bounds each readiness wait (etcd, then the apiserver); 60s when zero.
	StartTimeout time.Duration
	// APIServerFlags are appended to the kube-apiserver command line, for example
	// "--feature-gates=...". A flag given twice takes the later value.
	APIServerFlags []string
	// KeepDir keeps Dir (logs, credentials, etcd data) after Stop, for debugging.
	KeepDir bool
}

// Env is a running etcd and kube-apiserver. Its methods are safe for concurrent use.
type Env struct {
	// Dir is the temporary directory holding logs, credentials and etcd data.
	Dir string
	// RESTConfig authenticates as an admin (group system:masters) with a bearer token and
	// trusts the apiserver's serving CA.
	RESTConfig *rest.Config
	// Client is a clientset built from RESTConfig.
	Client kubernetes.Interface
	// KubeconfigPath is a kubeconfig file with the same credentials, for kubectl.
	KubeconfigPath string
	// APIServerLogPath and EtcdLogPath hold each process's stdout and stderr.
	APIServerLogPath, EtcdLogPath string

	opts        Options
	kubectlPath string
	kubectlErr  error // why kubectl cannot be used, if it was not found
	etcd        *process
	apiserver   *process

	stopOnce sync.Once
	stopErr  error
}

// Start runs etcd and kube-apiserver on free loopback ports and returns once the apiserver
// is ready, the default namespace exists, admissionregistration.k8s.io/v1 is served and the
// default and kube-system namespaces have their default ServiceAccount.
// On failure everything started is stopped, and the error includes the end of the failing
// process's log. Call Stop when done.
func Start(ctx context.Context, opts Options) (*Env, error) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	finder, err := defaultBinaryFinder()
	if err != nil {
		return nil, err
	}
	apiserverPath, err := finder.kubeAPIServer()
	if err != nil {
		return nil, err
	}
	etcdPath, err := finder.onPath("etcd", envEtcd)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "admit-testenv-")
	if err != nil {
		return nil, fmt.Errorf("creating test environment directory: %w", err)
	}
	env := &Env{
		Dir:              dir,
		APIServerLogPath: filepath.Join(dir, "kube-apiserver.log"),
		EtcdLogPath:      filepath.Join(dir, "etcd.log"),
		opts:             opts,
	}
	// Tests that never shell out should not need kubectl, so a missing one fails only Kubectl.
	env.kubectlPath, env.kubectlErr = finder.onPath("kubectl", envKubectl)

	began := time.Now()
	if err := env.start(ctx, apiserverPath, etcdPath); err != nil {
		if opts.KeepDir {
			err = fmt.Errorf("%w\n(all logs kept in %s)", err, dir)
		}
		if stopErr := env.Stop(); stopErr != nil {
			err = errors.Join(err, stopErr)
		}
		return nil, err
	}
	opts.Logf("testenv: kube-apiserver ready at %s after %v (dir %s)", env.RESTConfig.Host, time.Since(began).Round(time.Millisecond), dir)
	return env, nil
}

// start brings etcd up, then kube-apiserver on credentials of its own, and waits until it serves
// what tests need. The three ports are found together so that none is handed out twice.
func (e *Env) start(ctx context.Context, apiserverPath, etcdPath string) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdClientURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	etcdPeerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	securePort := ports[2]
	if err := e.startEtcd(ctx, etcdPath, etcdClientURL, etcdPeerURL); err != nil {
		return err
	}
	files, err := writeAPIServerFiles(filepath.Join(e.Dir, "pki"))
	if err != nil {
		return err
	}
	e.opts.Logf("testenv: starting %s on 127.0.0.1:%d", apiserverPath, securePort)
	e.apiserver, err = startProcess("kube-apiserver", apiserverPath, e.apiserverArgs(files, etcdClientURL, securePort), e.APIServerLogPath)
	if err != nil {
		return err
	}
	httpClient, err := e.connect(files, securePort)
	if err != nil {
		return err
	}
	if err := e.waitUntilServing(ctx, httpClient); err != nil {
		return err
	}
	e.KubeconfigPath = filepath.Join(e.Dir, "kubeconfig")
	if err := writeKubeconfig(e.KubeconfigPath, e.RESTConfig); err != nil {
		return err
	}
	return nil
}

// startEtcd starts etcd, a single-member cluster on the two URLs, and waits until it is healthy.
func (e *Env) startEtcd(ctx context.Context, etcdPath, etcdClientURL, etcdPeerURL string) error {
	var err error
	e.opts.Logf("testenv: starting %s on %s", etcdPath, etcdClientURL)
	e.etcd, err = startProcess("etcd", etcdPath, []string{
		"--name=testenv",
		"--data-dir=" + filepath.Join(e.Dir, "etcd"),
		"--listen-client-urls=" + etcdClientURL,
		"--advertise-client-urls=" + etcdClientURL,
		"--listen-peer-urls=" + etcdPeerURL,
		"--initial-advertise-peer-urls=" + etcdPeerURL,
		"--initial-cluster=testenv=" + etcdPeerURL,
		"--initial-cluster-state=new",
		"--logger=zap",
		"--log-outputs=stderr",
	}, e.EtcdLogPath)
	if err != nil {
		return err
	}
	return e.waitFor(ctx, e.etcd, "etcd to report healthy", func(ctx context.Context) error {
		return etcdHealthy(ctx, etcdClientURL)
	})
}

// apiserverArgs is kube-apiserver's command line: etcd, the loopback serving address, the
// credentials in files, then Options.APIServerFlags, which win over the flags before them.
func (e *Env) apiserverArgs(files apiserverFiles, etcdClientURL string, securePort int) []string {
	args := []string{
		"--etcd-servers=" + etcdClientURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(securePort),
		// Set so that the apiserver never writes into a default location; our own
		// certificate is used, so nothing is generated there.
		"--cert-dir=" + filepath.Join(e.Dir, "pki"),
		"--tls-cert-file=" + files.servingCert,
		"--tls-private-key-file=" + files.servingKey,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + files.saPublicKey,
		"--service-account-signing-key-file=" + files.saSigningKey,
		"--token-auth-file=" + files.tokenFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		// As kubeadm, kind and managed clusters run it (and admit review assumes): privileged
		// containers pass the pod validation.
		"--allow-privileged=true",
		// The "kubernetes" Service cannot point at a loopback address; without this the
		// apiserver logs a failed endpoint update every few seconds.
		"--endpoint-reconciler-type=none",
	}
	return append(args, e.opts.APIServerFlags...)
}

// connect sets RESTConfig and Client, an admin's, and returns an HTTP client with the same
// credentials for the readiness endpoint.
func (e *Env) connect(files apiserverFiles, securePort int) (*http.Client, error) {
	e.RESTConfig = &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(securePort),
		BearerToken:     files.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: files.caPEM},
		// Tests create many objects quickly; client-side throttling would only slow them.
		QPS:   1000,
		Burst: 2000,
	}
	client, err := kubernetes.NewForConfig(e.RESTConfig)
	if err != nil {
		return nil, fmt.Errorf("creating client: %w", err)
	}
	e.Client = client
	httpClient, err := rest.HTTPClientFor(e.RESTConfig)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP client: %w", err)
	}
	return httpClient, nil
}

// waitUntilServing waits until the apiserver is ready, has the default namespace and serves
// admissionregistration.k8s.io/v1, then creates the default ServiceAccounts.
func (e *Env) waitUntilServing(ctx context.Context, httpClient *http.Client) error {
	client := e.Client
	if err := e.waitFor(ctx, e.apiserver, "kube-apiserver /readyz", func(ctx context.Context) error {
		return getOK(ctx, httpClient, e.RESTConfig.Host+"/readyz")
	}); err != nil {
		return err
	}
	if err := e.waitFor(ctx, e.apiserver, "the default namespace", func(ctx context.Context) error {
		_, err := client.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{})
		return err
	}); err != nil {
		return err
	}
	if err := e.waitFor(ctx, e.apiserver, "admissionregistration.k8s.io/v1 to be served", func(context.Context) error {
		return servesWebhookConfigurations(client)
	}); err != nil {
		return err
	}
	// The apiserver runs its default admission plugins, ServiceAccount among them, which refuses
	// a pod whose service account does not exist. No controller-manager runs to create the
	// "default" service accounts, so the environment creates those of the namespaces it starts
	// with; tests create them in their own namespaces.
	for _, ns := range []string{metav1.NamespaceDefault, metav1.NamespaceSystem} {
		if err := e.waitFor(ctx, e.apiserver, "the default ServiceAccount of "+ns, func(ctx context.Context) error {
			_, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return nil
			}
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// waitFor polls check until it succeeds, proc exits, or the start timeout passes.
func (e *Env) waitFor(ctx context.Context, proc *process, what string, check func(context.Context) error) error {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, e.opts.StartTimeout)
	defer cancel()
	var lastErr error
	for {
		attemptCtx, cancelAttempt := context.WithTimeout(ctx, 5*time.Second)
		lastErr = check(attemptCtx)
		cancelAttempt()
		if lastErr == nil {
			e.opts.Logf("testenv: waited %v for %s", time.Since(began).Round(time.Millisecond), what)
			return nil
		}
		if exited, how := proc.hasExited(); exited {
			return fmt.Errorf("%s exited (%v) while waiting for %s\n--- last lines of %s ---\n%s",
				proc.name, how, what, filepath.Base(proc.logPath), proc.logTail(logTailLines))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last error: %v)\n--- last lines of %s ---\n%s",
				what, ctx.Err(), lastErr, filepath.Base(proc.logPath), proc.logTail(logTailLines))
		case <-time.After(pollInterval):
		}
	}
}

// Stop terminates the apiserver and etcd (SIGTERM, then SIGKILL after a grace period) and
// removes Dir unless Options.KeepDir is set. It is safe to call more than once.
func (e *Env) Stop() error {
	e.stopOnce.Do(func() {
		began := time.Now()
		var errs []error
		// The apiserver first: stopping etcd under it only produces noise in its log.
		for _, p := range []*process{e.apiserver, e.etcd} {
			if p != nil {
				if err := p.stop(stopGracePeriod); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if e.opts.KeepDir {
			e.opts.Logf("testenv: keeping %s", e.Dir)
		} else if err := os.RemoveAll(e.Dir); err != nil {
			errs = append(errs, fmt.Errorf("removing test environment directory: %w", err))
		}
		e.stopErr = errors.Join(errs...)
		e.opts.Logf("testenv: stopped after %v", time.Since(began).Round(time.Millisecond))
	})
	return e.stopErr
}

// Kubectl runs kubectl against the environment with stdin as its input. A non-zero exit
// is returned as an error that includes stderr.
func (e *Env) Kubectl(ctx context.Context, stdin []byte, args ...string) (stdout, stderr []byte, err error) {
	if e.kubectlErr != nil {
		return nil, nil, e.kubectlErr
	}
	fullArgs := append([]string{
		"--kubeconfig=" + e.KubeconfigPath,
		// Keep discovery caches out of $HOME and away from other environments.
		"--cache-dir=" + filepath.Join(e.Dir, "kubectl-cache"),
	}, args...)
	cmd := exec.CommandContext(ctx, e.kubectlPath, fullArgs...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.Bytes(), errOut.Bytes(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(errOut.Bytes()))
	}
	return out.Bytes(), errOut.Bytes(), nil
}

// APIServerLogTail returns the last n lines of the apiserver's log, for test failure messages.
func (e *Env) APIServerLogTail(n int) string { return fileTail(e.APIServerLogPath, n) }

// freePorts returns n distinct loopback ports that were free a moment ago. All listeners
// are held until every port is chosen, so the ports differ; another process may still take
// one before our child binds it, which shows up as a startup error with the log tail.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func etcdHealthy(ctx context.Context, clientURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientURL+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"health":"true"`)) {
		return fmt.Errorf("etcd /health: %s %s", resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

func getOK(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

func servesWebhookConfigurations(client kubernetes.Interface) error {
	const groupVersion = "admissionregistration.k8s.io/v1"
	list, err := client.Discovery().ServerResourcesForGroupVersion(groupVersion)
	if err != nil {
		return err
	}
	for _, want := range []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"} {
		if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == want }) {
			return fmt.Errorf("%s does not serve %s yet", groupVersion, want)
		}
	}
	return nil
}

func writeKubeconfig(path string, config *rest.Config) error {
	const name = "admit-testenv"
	kubeconfig := clientcmdapi.Config{
		Clusters: map[string]*clientcmdapi.Cluster{
			name: {Server: config.Host, CertificateAuthorityData: config.CAData},
		},
		AuthInfos: map[string]*clientcmdapi.AuthInfo{
			adminUser: {Token: config.BearerToken},
		},
		Contexts: map[string]*clientcmdapi.Context{
			name: {Cluster: name, AuthInfo: adminUser, Namespace: corev1.NamespaceDefault},
		},
		CurrentContext: name,
	}
	if err := clientcmd.WriteToFile(kubeconfig, path); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	return nil
}

// CPU is the CPU time, user and system, kube-apiserver and etcd have used since they started:
// what a benchmark measures the apiserver's own work by (Linux only).
func (e *Env) CPU() (apiserver, etcd time.Duration, err error) {
	if apiserver, err = e.apiserver.cpu(); err != nil {
		return 0, 0, err
	}
	if etcd, err = e.etcd.cpu(); err != nil {
		return 0, 0, err
	}
	return apiserver, etcd, nil
}
