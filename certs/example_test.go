package certs_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/admitkit/admit/certs"
)

// A CA and a serving certificate for a webhook behind the Service "hook" in namespace
// "system". The CA certificate goes into the webhook configuration's caBundle.
func ExampleNewCA() {
	ca, err := certs.NewCA("admit-webhook-ca", 365*24*time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	serving, err := ca.IssueServing(certs.ServingOptions{
		DNSNames: []string{"hook.system.svc", "hook.system.svc.cluster.local"},
		ValidFor: 90 * 24 * time.Hour,
	})
	if err != nil {
		log.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Certificate())
	_, err = serving.Certificate().Verify(x509.VerifyOptions{DNSName: "hook.system.svc", Roots: roots})
	fmt.Println("verifies for hook.system.svc:", err == nil)
	fmt.Println("names:", serving.Certificate().DNSNames)
	// Output:
	// verifies for hook.system.svc: true
	// names: [hook.system.svc hook.system.svc.cluster.local]
}

// A client certificate for mutual TLS; Kubernetes maps the organizations to groups.
func ExampleCA_IssueClient() {
	ca, err := certs.NewCA("clients", 24*time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	client, err := ca.IssueClient("kube-apiserver", []string{"system:masters"}, time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(client.Certificate().Subject.CommonName, client.Certificate().Subject.Organization)
	// Output: kube-apiserver [system:masters]
}

// A caBundle with a private key in it is refused before it can be published.
func ExampleParseCertificatesPEM() {
	ca, err := certs.NewCA("ca", time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	bundle := append(ca.CertPEM(), ca.KeyPEM()...)
	_, err = certs.ParseCertificatesPEM(bundle)
	fmt.Println(err)
	// Output: PEM block 1 is "PRIVATE KEY", want "CERTIFICATE" (a private key must never be part of a CA bundle)
}

// Writing the files a kubernetes.io/tls Secret would contain.
func ExampleWriteFiles() {
	ca, err := certs.NewCA("ca", time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	serving, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "serving-certs")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := certs.WriteFiles(dir, ca, serving); err != nil {
		log.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Name(), info.Mode().Perm())
	}
	// Output:
	// ca.crt -rw-r--r--
	// tls.crt -rw-r--r--
	// tls.key -rw-------
}

// A TLS server whose certificate is reloaded from a (possibly Secret-mounted) directory.
func ExampleWatcher() {
	dir, err := os.MkdirTemp("", "serving-certs")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ca, err := certs.NewCA("ca", time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	serving, err := ca.IssueServing(certs.ServingOptions{DNSNames: []string{"hook.system.svc"}, ValidFor: time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	if err := certs.WriteFiles(dir, ca, serving); err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops watching
	watcher := certs.NewWatcher(filepath.Join(dir, certs.CertFileName), filepath.Join(dir, certs.KeyFileName),
		certs.WatcherOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := watcher.Start(ctx); err != nil {
		log.Fatal(err)
	}
	config := &tls.Config{GetCertificate: watcher.GetCertificate, MinVersion: tls.VersionTLS12}
	_ = config // pass to tls.Listen or http.Server.TLSConfig

	fmt.Println("serving", watcher.Leaf().Subject.CommonName)
	// Output: serving hook.system.svc
}

// A server that authenticates its clients with a CA bundle that is reloaded when it
// changes: GetConfigForClient picks the current pool at every handshake.
func ExampleCAPoolWatcher() {
	dir, err := os.MkdirTemp("", "client-ca")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	clientCA, err := certs.NewCA("apiserver-clients", time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	bundle := filepath.Join(dir, "client-ca.crt")
	if err := os.WriteFile(bundle, clientCA.CertPEM(), 0o644); err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clientCAs := certs.NewCAPoolWatcher(bundle, certs.CAPoolWatcherOptions{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err := clientCAs.Start(ctx); err != nil {
		log.Fatal(err)
	}
	var serving *certs.Watcher // started as in the Watcher example
	config := &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			return &tls.Config{
				MinVersion:     tls.VersionTLS12,
				GetCertificate: serving.GetCertificate,
				ClientAuth:     tls.RequireAndVerifyClientCert,
				ClientCAs:      clientCAs.Pool(),
			}, nil
		},
	}
	_ = config

	fmt.Println("client CA pool loaded:", clientCAs.Pool() != nil)
	// Output: client CA pool loaded: true
}
