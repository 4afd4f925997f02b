package reliability

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/certs"
)

// tlsPolicy connects to admit serve with clients of every TLS version and client
// certificate. Promises: the minimum TLS version is enforced; with --client-ca, a client without
// a certificate signed by that CA is refused.
func tlsPolicy(t *testing.T, m *measurements) {
	pki := newServingPKI(t)
	clientCA, err := certs.NewCA("admit reliability client CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	strangerCA, err := certs.NewCA("stranger CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	apiserver := issueClient(t, clientCA, "kube-apiserver")
	stranger := issueClient(t, strangerCA, "kube-apiserver")
	clientCAFile := filepath.Join(t.TempDir(), "client-ca.crt")
	if err := os.WriteFile(clientCAFile, clientCA.CertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	volume := newSecretVolume(t, pki.files(pki.serving))
	open := startServe(t, volume.dir)
	strict := startServe(t, volume.dir, "--tls-min-version", "1.3", "--client-ca", clientCAFile)

	tests := []struct {
		name       string
		server     *serveProcess
		version    uint16
		cert       *tls.Certificate
		wantServed bool
	}{
		{name: "TLS 1.0 client", server: open, version: tls.VersionTLS10},
		{name: "TLS 1.1 client", server: open, version: tls.VersionTLS11},
		{name: "TLS 1.2 client", server: open, version: tls.VersionTLS12, wantServed: true},
		{name: "TLS 1.3 client", server: open, version: tls.VersionTLS13, wantServed: true},
		{name: "TLS 1.2 client of a server requiring 1.3", server: strict, version: tls.VersionTLS12, cert: &apiserver},
		{name: "no client certificate", server: strict, version: tls.VersionTLS13},
		{name: "client certificate of another CA", server: strict, version: tls.VersionTLS13, cert: &stranger},
		{name: "client certificate of the client CA", server: strict, version: tls.VersionTLS13, cert: &apiserver, wantServed: true},
	}
	var outcomes []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := tlsConfig(pki.ca)
			config.MinVersion, config.MaxVersion = tt.version, tt.version
			if tt.cert != nil {
				config.Certificates = []tls.Certificate{*tt.cert}
			}
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: config}}
			defer client.CloseIdleConnections()
			req, err := postReview("https://"+tt.server.addr+mirroredPodPath, podReview("tls", "nginx"))
			if err != nil {
				t.Fatal(err)
			}
			var served error
			resp, err := client.Do(req)
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				served = checkMirrored("tls", resp, body)
			} else {
				served = err
			}
			if (served == nil) != tt.wantServed {
				t.Errorf("served: %v (%v), want served: %v", served == nil, served, tt.wantServed)
			}
			outcome := "refused"
			if served == nil {
				outcome = "served"
			}
			outcomes = append(outcomes, tt.name+" "+outcome)
		})
	}
	m.Logf("%s", strings.Join(outcomes, ", "))
}

func issueClient(t *testing.T, ca *certs.CA, name string) tls.Certificate {
	t.Helper()
	kp, err := ca.IssueClient(name, []string{"system:masters"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// noPrivateKeyInCABundle runs every command that writes a caBundle — admit serve
// --print-config and admit certs inject — with the files admit certs create wrote, then with CA
// files that hold a private key in some form. Promise: a caBundle only ever holds the CA
// certificates, and a CA file with a private key in it is refused without writing anything.
func noPrivateKeyInCABundle(t *testing.T, m *measurements) {
	dir := t.TempDir()
	tlsDir := filepath.Join(dir, "tls")
	caKeyFile := filepath.Join(dir, "ca.key")
	stdout, stderr, code := runAdmit(t, nil, "certs", "create", "--ip", "127.0.0.1", "--out", tlsDir, "--ca-key-out", caKeyFile, "-o", "json")
	if code != 0 {
		t.Fatalf("certs create: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "PRIVATE KEY") {
		t.Errorf("certs create printed a private key:\n%s", stdout)
	}
	if info, err := os.Stat(caKeyFile); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the CA key file: %v, mode %v; want mode 0600", err, info.Mode().Perm())
	}
	caCert := readFile(t, filepath.Join(tlsDir, certs.CAFileName))
	servingKey := readFile(t, filepath.Join(tlsDir, certs.KeyFileName))
	caKey := readFile(t, caKeyFile)

	config, _, code := runAdmit(t, nil, "serve", "--print-config", "--url", "https://127.0.0.1:9443", "--cert-dir", tlsDir)
	if code != 0 {
		t.Fatalf("serve --print-config: exit %d", code)
	}
	assertCABundles(t, "serve --print-config", config, caCert)
	configFile := filepath.Join(dir, "webhooks.yaml")
	if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	injected, stderr, code := runAdmit(t, nil, "certs", "inject", "--ca-file", filepath.Join(tlsDir, certs.CAFileName), configFile)
	if code != 0 {
		t.Fatalf("certs inject: exit %d: %s", code, stderr)
	}
	assertCABundles(t, "certs inject", injected, caCert)

	keyed := map[string][]byte{
		"the serving key":                               servingKey,
		"the CA key":                                    caKey,
		"the CA certificate then its key":               append(append([]byte{}, caCert...), caKey...),
		"a key whose END line lost a dash, then the CA": append([]byte(strings.Replace(string(caKey), "-----END PRIVATE KEY-----", "-----END PRIVATE KEY----", 1)), caCert...),
		"a key without its END line, then the CA":       append([]byte(strings.Replace(string(caKey), "-----END PRIVATE KEY-----\n", "", 1)), caCert...),
	}
	refused := 0
	for name, content := range keyed {
		if t.Run(name, func(t *testing.T) {
			caFile := filepath.Join(t.TempDir(), certs.CAFileName)
			if err := os.WriteFile(caFile, content, 0o600); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := runAdmit(t, nil, "certs", "inject", "--ca-file", caFile, configFile)
			if code != 2 || out != "" {
				t.Errorf("certs inject with %s: exit %d, %d bytes written; want exit 2 and nothing written (stderr %q)", name, code, len(out), stderr)
			}
			certDir := filepath.Dir(caFile)
			out, stderr, code = runAdmit(t, nil, "serve", "--print-config", "--url", "https://127.0.0.1:9443", "--cert-dir", certDir)
			if code != 2 || out != "" {
				t.Errorf("serve --print-config with %s as ca.crt: exit %d, %d bytes written; want exit 2 and nothing written (stderr %q)", name, code, len(out), stderr)
			}
		}) {
			refused++
		}
	}
	m.Logf("the caBundles written by serve --print-config and certs inject hold the CA certificate alone; %d of %d CA files holding a key refused by both (exit 2, nothing written)", refused, len(keyed))
}

// assertCABundles checks that every webhook of the configurations in stream has caBundle want.
func assertCABundles(t *testing.T, command, stream string, want []byte) {
	t.Helper()
	if strings.Contains(stream, "PRIVATE KEY") {
		t.Errorf("%s wrote a private key", command)
	}
	webhooks := 0
	for _, doc := range strings.Split(stream, "\n---\n") {
		var c admissionregistrationv1.ValidatingWebhookConfiguration // both types share clientConfig
		if err := yaml.Unmarshal([]byte(doc), &c); err != nil {
			t.Fatalf("%s: decoding its output: %v", command, err)
		}
		for _, w := range c.Webhooks {
			webhooks++
			if !bytes.Equal(w.ClientConfig.CABundle, want) {
				t.Errorf("%s: webhook %s has caBundle %q, want the CA certificate", command, w.Name, w.ClientConfig.CABundle)
			}
		}
	}
	if webhooks == 0 {
		t.Errorf("%s wrote no webhook", command)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noSecretsInLogs runs admit serve at debug level and sends it requests that carry secrets
// where secrets travel: object data, environment values, annotations, user extra, an
// Authorization header, the URL, and reviews it refuses. Promise: none of them, and no part of the
// private key, appears in the logs.
func noSecretsInLogs(t *testing.T, m *measurements) {
	pki := newServingPKI(t)
	volume := newSecretVolume(t, pki.files(pki.serving))
	server := startServe(t, volume.dir, "--log-level", "debug")
	const secret = "s3cr3t-T0KEN-value"
	pod := string(podReview("secrets", "nginx"))
	reviews := map[string]string{
		"env value":  strings.Replace(pod, `"image":"nginx"`, `"image":"nginx","env":[{"name":"PASSWORD","value":"`+secret+`"}]`, 1),
		"annotation": strings.Replace(pod, `"metadata":{"name":"p",`, `"metadata":{"annotations":{"token":"`+secret+`"},"name":"p",`, 1),
		"user extra": strings.Replace(pod, `"userInfo":{"username":"tester"}`, `"userInfo":{"username":"tester","extra":{"token":["`+secret+`"]}}`, 1),
		"secret data refused": strings.Replace(strings.Replace(pod, `"kind":"Pod"}`, `"kind":"Secret"}`, 1),
			`"spec":{"containers":[{"name":"app","image":"nginx"}]}`, `"stringData":{"password":"`+secret+`"}`, 1),
		"undecodable object": strings.Replace(pod, `"spec":{"containers"`, `"spec":{"password":"`+secret+`","containers":7,"x"`, 1),
		"mistyped field":     strings.Replace(pod, `"name":"app"`, `"name":{"password":"`+secret+`"}`, 1),
	}
	client := tlsClient(pki)
	defer client.CloseIdleConnections()
	for name, body := range reviews {
		req, err := postReview("https://"+server.addr+mirroredPodPath+"?token="+secret, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// A request is logged after its answer is written: wait until the last one is in the log.
	waitFor(t, 10*time.Second, "the requests to be logged", func() error {
		if n := strings.Count(server.logs.String(), `"uid":"secrets"`); n < 3 {
			return fmt.Errorf("%d requests logged", n)
		}
		return nil
	})
	logs := server.logs.String()
	if strings.Contains(logs, secret) {
		t.Errorf("a secret was logged:\n%s", logs)
	}
	for _, line := range strings.Split(string(pki.serving.KeyPEM()), "\n") {
		if len(line) > 16 && strings.Contains(logs, line) {
			t.Errorf("part of the private key was logged: %q", line)
		}
	}
	if strings.Contains(logs, "PRIVATE KEY") {
		t.Errorf("a private key was logged")
	}
	m.Logf("%d reviews carrying a secret in %d places, %d log lines at debug level: the secret logged %d times, key material %d times",
		len(reviews), len(reviews)+2, strings.Count(logs, "\n"), strings.Count(logs, secret), strings.Count(logs, "PRIVATE KEY"))
}
