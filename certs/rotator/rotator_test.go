package rotator

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/admitkit/admit/certs"
)

// fixture is a cluster (fake clientsets) holding the objects a Rotator owns, and a clock the
// test moves.
type fixture struct {
	t       *testing.T
	client  *fake.Clientset
	crds    *apiextensionsfake.Clientset
	now     time.Time
	rotator *Rotator
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	url := "https://example.com/hook"
	service := &admissionregistrationv1.ServiceReference{Namespace: "webhooks", Name: "webhook"}
	f := &fixture{
		t: t,
		client: fake.NewClientset(
			&admissionregistrationv1.MutatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "owned"},
				Webhooks: []admissionregistrationv1.MutatingWebhook{
					{Name: "a.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: service}},
					{Name: "b.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: service, CABundle: []byte("stale")}},
				},
			},
			&admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "owned"},
				Webhooks:   []admissionregistrationv1.ValidatingWebhook{{Name: "c.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url}}},
			},
			&admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "someone-elses"},
				Webhooks:   []admissionregistrationv1.ValidatingWebhook{{Name: "d.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url}}},
			},
		),
		crds: apiextensionsfake.NewSimpleClientset( // NewClientset lacks the schema of CRDs for its field manager
			&apiextensionsv1.CustomResourceDefinition{
				ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
				Spec: apiextensionsv1.CustomResourceDefinitionSpec{Conversion: &apiextensionsv1.CustomResourceConversion{
					Strategy: apiextensionsv1.WebhookConverter,
					Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: "webhooks", Name: "webhook"}}},
				}},
			}),
		now: time.Now(),
	}
	r, err := New(Options{
		Client: f.client, APIExtensions: f.crds,
		Namespace: "webhooks", SecretName: "webhook-certs", CertDir: t.TempDir(),
		DNSNames:                        []string{"webhook.webhooks.svc"},
		MutatingWebhookConfigurations:   []string{"owned"},
		ValidatingWebhookConfigurations: []string{"owned"},
		CustomResourceDefinitions:       []string{"widgets.example.com"},
		CAValidity:                      10 * time.Hour, CARenewBefore: 2 * time.Hour,
		ServingValidity: 3 * time.Hour, ServingRenewBefore: time.Hour,
		PublishGrace: time.Minute, ResyncInterval: 24 * time.Hour, Identity: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Clock:  func() time.Time { return f.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.rotator = r
	return f
}

// pass runs the writer once and returns its state as stored.
func (f *fixture) pass() (state, time.Duration) {
	f.t.Helper()
	next, err := f.rotator.reconcile(context.Background())
	if err != nil {
		f.t.Fatalf("reconcile: %v", err)
	}
	return f.stored(), next
}

func (f *fixture) stored() state {
	f.t.Helper()
	s, err := f.client.CoreV1().Secrets("webhooks").Get(context.Background(), "webhook-certs", metav1.GetOptions{})
	if err != nil {
		f.t.Fatalf("reading the Secret: %v", err)
	}
	return parseSecret(s)
}

// bundles returns the caBundle of every webhook, owned or not, by "kind/name/webhook".
func (f *fixture) bundles() map[string]string {
	f.t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	m, _ := f.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "owned", metav1.GetOptions{})
	for _, w := range m.Webhooks {
		out["mutating/owned/"+w.Name] = string(w.ClientConfig.CABundle)
	}
	for _, name := range []string{"owned", "someone-elses"} {
		v, _ := f.client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		for _, w := range v.Webhooks {
			out["validating/"+name+"/"+w.Name] = string(w.ClientConfig.CABundle)
		}
	}
	crd, _ := f.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "widgets.example.com", metav1.GetOptions{})
	out["crd/widgets.example.com"] = string(crd.Spec.Conversion.Webhook.ClientConfig.CABundle)
	return out
}

func ownedBundles(bundle string) map[string]string {
	return map[string]string{
		"mutating/owned/a.example.com": bundle, "mutating/owned/b.example.com": bundle,
		"validating/owned/c.example.com": bundle, "validating/someone-elses/d.example.com": "",
		"crd/widgets.example.com": bundle,
	}
}

func serials(certs []*x509.Certificate) []string {
	var out []string
	for _, c := range certs {
		out = append(out, c.SerialNumber.String())
	}
	return out
}

// TestRotatorLifecycle follows a Secret from creation through serving renewals, a CA renewal
// (published next to the old CA before it signs what is served) and the old CA's expiry.
func TestRotatorLifecycle(t *testing.T) {
	f := newFixture(t)

	first, _ := f.pass()
	if first.ca == nil || first.serving == nil || len(first.trusted) != 1 {
		t.Fatalf("first pass: want a CA and a serving certificate, got %+v", first)
	}
	if !first.signedByCurrent() || !slices.Equal(first.serving.DNSNames, []string{"webhook.webhooks.svc"}) {
		t.Errorf("serving certificate: signed by the CA %v, names %v", first.signedByCurrent(), first.serving.DNSNames)
	}
	if diff := cmp.Diff(ownedBundles(string(first.bundlePEM())), f.bundles()); diff != "" {
		t.Errorf("caBundles after the first pass (-want +got):\n%s", diff)
	}
	if !first.publishedAt.Equal(f.now.Truncate(time.Second)) {
		t.Errorf("published at %v, want %v", first.publishedAt, f.now)
	}

	// Nothing is due: nothing is written.
	f.client.ClearActions()
	again, next := f.pass()
	for _, a := range f.client.Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("a pass with nothing due wrote: %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
	if again.serving.SerialNumber.Cmp(first.serving.SerialNumber) != 0 {
		t.Error("the serving certificate changed with nothing due")
	}
	if want := 2 * time.Hour; next > want+time.Minute || next < want-time.Minute {
		t.Errorf("next pass in %v, want about %v (serving renewal)", next, want)
	}

	// The serving certificate's renewal: same CA, new certificate, caBundles untouched.
	f.now = f.now.Add(2*time.Hour + time.Minute)
	renewed, _ := f.pass()
	if renewed.serving.SerialNumber.Cmp(first.serving.SerialNumber) == 0 || !renewed.signedByCurrent() {
		t.Error("the serving certificate was not renewed by the current CA")
	}
	if diff := cmp.Diff(serials(first.trusted), serials(renewed.trusted)); diff != "" {
		t.Errorf("the CA changed with the serving certificate (-before +after):\n%s", diff)
	}

	// The CA's renewal: the new CA is published next to the old one; the server keeps the
	// old CA's certificate until the grace has passed.
	// Hour by hour, as the writer's loop would run, until the CA is renewed.
	var publishing state
	for range 10 {
		f.now = f.now.Add(time.Hour)
		if publishing, next = f.pass(); len(publishing.trusted) > 1 {
			break
		}
	}
	if len(publishing.trusted) != 2 || publishing.trusted[1].SerialNumber.Cmp(first.trusted[0].SerialNumber) != 0 {
		t.Fatalf("trusted CAs during the renewal: %v, want the new one and %v", serials(publishing.trusted), serials(first.trusted))
	}
	if diff := cmp.Diff(ownedBundles(string(publishing.bundlePEM())), f.bundles()); diff != "" {
		t.Errorf("caBundles during the CA renewal (-want +got):\n%s", diff)
	}
	if publishing.signedByCurrent() {
		t.Error("a certificate of the new CA is served before the grace has passed")
	}
	if next > time.Minute {
		t.Errorf("next pass in %v, want within the grace", next)
	}
	f.now = f.now.Add(time.Minute)
	switched, _ := f.pass()
	if !switched.signedByCurrent() || len(switched.trusted) != 2 {
		t.Errorf("after the grace: signed by the new CA %v, trusted %d CAs", switched.signedByCurrent(), len(switched.trusted))
	}

	// The old CA leaves the bundle when it expires.
	f.now = first.trusted[0].NotAfter.Add(time.Minute)
	expired, _ := f.pass()
	if len(expired.trusted) != 1 || expired.trusted[0].SerialNumber.Cmp(switched.trusted[0].SerialNumber) != 0 {
		t.Errorf("after the old CA expired: trusted %v, want only %v", serials(expired.trusted), serials(switched.trusted[:1]))
	}
	if diff := cmp.Diff(ownedBundles(string(expired.bundlePEM())), f.bundles()); diff != "" {
		t.Errorf("caBundles after the old CA expired (-want +got):\n%s", diff)
	}
}

// TestRotatorRestoresAnEmptiedBundle puts the caBundle back after a kubectl apply of the
// manifest (which has none) emptied it.
func TestRotatorRestoresAnEmptiedBundle(t *testing.T) {
	f := newFixture(t)
	st, _ := f.pass()
	ctx := context.Background()
	v, _ := f.client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "owned", metav1.GetOptions{})
	v.Webhooks[0].ClientConfig.CABundle = nil
	if _, err := f.client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, v, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.pass()
	if diff := cmp.Diff(ownedBundles(string(st.bundlePEM())), f.bundles()); diff != "" {
		t.Errorf("caBundles (-want +got):\n%s", diff)
	}
}

// TestRotatorReplacesAnUnusableSecret starts over from a Secret whose contents do not parse.
func TestRotatorReplacesAnUnusableSecret(t *testing.T) {
	f := newFixture(t)
	_, err := f.client.CoreV1().Secrets("webhooks").Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "webhook-certs", Namespace: "webhooks", Labels: map[string]string{"keep": "me"}},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: []byte("garbage"), corev1.TLSPrivateKeyKey: []byte("garbage"), "extra": []byte("kept")},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.pass()
	if st.ca == nil || !st.signedByCurrent() {
		t.Fatal("the unusable Secret was not replaced by a CA and its certificate")
	}
	s, _ := f.client.CoreV1().Secrets("webhooks").Get(context.Background(), "webhook-certs", metav1.GetOptions{})
	if s.Labels["keep"] != "me" || string(s.Data["extra"]) != "kept" {
		t.Errorf("the Secret's other labels and keys were lost: %v %v", s.Labels, s.Data["extra"])
	}
}

// TestSyncFilesWritesWhatTheServerReads copies the Secret into CertDir, once.
func TestSyncFilesWritesWhatTheServerReads(t *testing.T) {
	f := newFixture(t)
	f.pass()
	s, _ := f.client.CoreV1().Secrets("webhooks").Get(context.Background(), "webhook-certs", metav1.GetOptions{})
	f.rotator.syncFiles(s)
	select {
	case <-f.rotator.Ready():
	default:
		t.Fatal("Ready is not closed after the files were written")
	}
	dir := f.rotator.opts.CertDir
	for name, key := range map[string]string{certs.CertFileName: corev1.TLSCertKey, certs.KeyFileName: corev1.TLSPrivateKeyKey, certs.CAFileName: corev1.ServiceAccountRootCAKey} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, s.Data[key]) {
			t.Errorf("%s: %v, contents equal to the Secret's %s: %v", name, err, key, bytes.Equal(got, s.Data[key]))
		}
	}
	if _, err := tls.LoadX509KeyPair(filepath.Join(dir, certs.CertFileName), filepath.Join(dir, certs.KeyFileName)); err != nil {
		t.Errorf("the server cannot load the files: %v", err)
	}
}

func TestNewRefusesIncompleteOptions(t *testing.T) {
	_, err := New(Options{ServingValidity: 10 * time.Hour, CAValidity: 10 * time.Hour})
	if err == nil {
		t.Fatal("New accepted empty options")
	}
	for _, want := range []string{"Client is required", "Namespace and SecretName are required", "CertDir is required", "DNSNames or IPs are required", "outlives the CA's renewal"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
