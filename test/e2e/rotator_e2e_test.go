//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/certs/rotator"
	"github.com/admitkit/admit/webhook"
)

// TestRotatorRotatesWhileTheAPIServerCalls runs two replicas of a webhook server's certificate
// rotator against the real kube-apiserver, with lifetimes of seconds: the elected one creates the
// Secret and publishes the CA in the configuration's caBundle (read back through the
// apiserver), the other follows the Secret into its own files, and while serving certificates
// are renewed and the CA is replaced, every request the apiserver sends to the fail-closed
// webhook succeeds.
func TestRotatorRotatesWhileTheAPIServerCalls(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns, selector := newNamespace(t, "rotator")
	port := freePort(t)
	configName := "rotator-" + ns

	var calls atomic.Int64
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := registry.Register(webhook.Webhook{
		Name: "configmaps.rotator.e2e.admit.dev", Type: webhook.TypeValidating, Kind: configMapKind, Resource: "configmaps",
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Handler: webhook.HandlerFunc(func(context.Context, *webhook.Request) webhook.Response {
			calls.Add(1)
			return webhook.Allowed()
		}),
	}); err != nil {
		t.Fatal(err)
	}
	_, validating, err := registry.Configurations(webhook.ConfigOptions{Name: configName, ClientConfig: webhook.ClientConfig{URL: "https://127.0.0.1:" + strconv.Itoa(port)}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range validating.Webhooks {
		validating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
		validating.Webhooks[i].FailurePolicy = ptrTo(admissionregistrationv1.Fail)
		validating.Webhooks[i].ClientConfig.CABundle = nil
	}
	configs := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := configs.Create(ctx, validating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = configs.Delete(context.Background(), configName, metav1.DeleteOptions{}) })

	// Two replicas: a and b, each with its own certificate directory.
	dirs := []string{t.TempDir(), t.TempDir()}
	var wg sync.WaitGroup
	var rotators []*rotator.Rotator
	for i, dir := range dirs {
		r, err := rotator.New(rotator.Options{
			Client: env.Client, Namespace: ns, SecretName: "webhook-certs", CertDir: dir,
			IPs:                             []net.IP{net.IPv4(127, 0, 0, 1)},
			ValidatingWebhookConfigurations: []string{configName},
			CAValidity:                      40 * time.Second, CARenewBefore: 20 * time.Second,
			ServingValidity: 12 * time.Second, ServingRenewBefore: 6 * time.Second,
			PublishGrace: 3 * time.Second, ResyncInterval: time.Minute,
			Identity:      "replica-" + string(rune('a'+i)),
			LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		rotators = append(rotators, r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Run(ctx); err != nil {
				t.Errorf("rotator %d: %v", i, err)
			}
		}()
	}
	t.Cleanup(wg.Wait)
	t.Cleanup(cancel)
	for i, r := range rotators {
		select {
		case <-r.Ready():
		case <-time.After(30 * time.Second):
			t.Fatalf("replica %d: no certificate files after 30 s", i)
		}
	}

	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: "127.0.0.1:" + strconv.Itoa(port), Handler: registry, GracePeriod: 5 * time.Second,
		CertFile: filepath.Join(dirs[0], certs.CertFileName), KeyFile: filepath.Join(dirs[0], certs.KeyFileName),
		CertPollInterval: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	runServer(t, server)

	create := func(name string) error {
		_, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	eventually(t, "the webhook to be called with the published caBundle", func() error {
		before := calls.Load()
		if err := create("marker"); err != nil {
			return err
		}
		if calls.Load() == before {
			return errors.New("admitted without a call: the configuration is not in effect yet")
		}
		return nil
	})

	// Rotate for a while: the CA is due 20 s after it was made, serving certificates every 6 s.
	bundles, servings, signers := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var failures []string
	deadline := time.Now().Add(32 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		if err := create(fmt.Sprintf("cm-%d", i)); err != nil {
			failures = append(failures, err.Error())
		}
		if c, err := configs.Get(ctx, configName, metav1.GetOptions{}); err == nil {
			bundles[string(c.Webhooks[0].ClientConfig.CABundle)] = true
		}
		if cert, err := servedCertificate(port); err == nil {
			servings[cert.SerialNumber.String()] = true
			signers[string(cert.AuthorityKeyId)] = true
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("during rotation: %d caBundles read through the apiserver, %d serving certificates presented, signed by %d CAs, %d failed requests", len(bundles), len(servings), len(signers), len(failures))
	if len(failures) > 0 {
		t.Errorf("%d requests failed during rotation, first: %s", len(failures), failures[0])
	}
	if len(bundles) < 2 {
		t.Errorf("the caBundle read through the apiserver took %d values, want the CA renewed (2 or more)", len(bundles))
	}
	for bundle := range bundles {
		if parsed, err := certs.ParseCertificatesPEM([]byte(bundle)); err != nil || len(parsed) == 0 {
			t.Errorf("caBundle %q is not a bundle of certificates: %v", bundle, err)
		}
	}
	if len(servings) < 4 {
		t.Errorf("the server presented %d serving certificates over 32 s, want renewals every 6 s", len(servings))
	}
	if len(signers) < 2 {
		t.Errorf("the served certificates were signed by %d CAs, want the renewed CA's certificates served too", len(signers))
	}

	// One writer: the Lease names one replica; the other's files follow the Secret.
	lease, err := env.Client.CoordinationV1().Leases(ns).Get(ctx, "webhook-certs-rotator", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || !strings.HasPrefix(*lease.Spec.HolderIdentity, "replica-") {
		t.Errorf("the Lease does not name a replica: %v %+v", err, lease)
	}
	eventually(t, "both replicas' files to hold the Secret's certificate", func() error {
		secret, err := env.Client.CoreV1().Secrets(ns).Get(ctx, "webhook-certs", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i, dir := range dirs {
			got, err := os.ReadFile(filepath.Join(dir, certs.CertFileName))
			if err != nil || !bytes.Equal(got, secret.Data[corev1.TLSCertKey]) {
				return fmt.Errorf("replica %d's tls.crt differs from the Secret's (%v)", i, err)
			}
		}
		return nil
	})
}

// servedCertificate is the certificate the server presents.
func servedCertificate(port int) (*x509.Certificate, error) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only the certificate is read
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0], nil
}
