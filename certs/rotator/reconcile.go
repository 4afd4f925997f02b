package rotator

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"iter"
	"slices"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/certs"
)

// reconcile is one pass of the writer: it brings the Secret and the owned caBundles to what
// they should be now and says when the next pass is due.
func (r *Rotator) reconcile(ctx context.Context) (next time.Duration, err error) {
	now := r.opts.Clock()
	secret, err := r.opts.Client.CoreV1().Secrets(r.opts.Namespace).Get(ctx, r.opts.SecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		secret = nil
	case err != nil:
		return 0, fmt.Errorf("reading Secret %s/%s: %w", r.opts.Namespace, r.opts.SecretName, err)
	}
	st := parseSecret(secret)
	changed := false

	// 1. A CA that is missing, unusable or due for renewal is replaced; the old one stays
	// trusted next to it until it expires.
	if st.ca == nil || now.After(st.ca.Certificate().NotAfter.Add(-r.opts.CARenewBefore)) {
		ca, err := certs.NewCAAt(r.opts.CommonName, now, r.opts.CAValidity)
		if err != nil {
			return 0, err
		}
		st.ca, st.publishedAt = ca, time.Time{}
		st.trusted = append([]*x509.Certificate{ca.Certificate()}, st.trusted...)
		changed = true
		r.log.Info("new CA", "notAfter", ca.Certificate().NotAfter, "trusted", len(st.trusted))
	}
	if kept := stillValid(st.trusted, now); len(kept) != len(st.trusted) {
		st.trusted, changed = kept, true
	}

	// Without a serving certificate the server serves nothing yet: one is issued at once, by
	// the current CA, however recent.
	if st.serving == nil {
		if err := r.issueServing(&st, now); err != nil {
			return 0, err
		}
		changed = true
	}

	// 2. The Secret is written before any caBundle names the new CA, so that its key is never
	// lost while the CA is trusted.
	if changed {
		if secret, err = r.writeSecret(ctx, secret, st); err != nil {
			return 0, err
		}
		st.secretVersion, changed = secret.ResourceVersion, false
	}

	// 3. Every owned caBundle holds the bundle.
	if err := r.publish(ctx, st.bundlePEM()); err != nil {
		return 0, err
	}
	if st.publishedAt.IsZero() {
		st.publishedAt, changed = now, true
	}

	// 4. The serving certificate is renewed by the current CA once that CA has been published
	// long enough; until then a certificate of an older, still trusted CA is kept.
	next = r.opts.ResyncInterval
	servingDue := st.serving == nil || !st.signedByCurrent() || !r.namesMatch(st.serving) ||
		now.After(st.serving.NotAfter.Add(-r.opts.ServingRenewBefore))
	if servingDue {
		publishedFor := now.Sub(st.publishedAt)
		if !st.signedByCurrent() && st.servingTrusted(now) && r.namesMatch(st.serving) && publishedFor < r.opts.PublishGrace {
			next = min(next, r.opts.PublishGrace-publishedFor)
		} else {
			if err := r.issueServing(&st, now); err != nil {
				return 0, err
			}
			changed = true
		}
	}
	if changed {
		if _, err := r.writeSecret(ctx, secret, st); err != nil {
			return 0, err
		}
	}
	next = min(next, untilRenewal(now, st.serving.NotAfter, r.opts.ServingRenewBefore), untilRenewal(now, st.ca.Certificate().NotAfter, r.opts.CARenewBefore))
	return max(next, time.Second), nil
}

// issueServing gives st a serving certificate signed by its current CA.
func (r *Rotator) issueServing(st *state, now time.Time) error {
	kp, err := st.ca.IssueServing(certs.ServingOptions{DNSNames: r.opts.DNSNames, IPs: r.opts.IPs, ValidFor: r.opts.ServingValidity, Now: now})
	if err != nil {
		return err
	}
	st.serving, st.certPEM, st.keyPEM = kp.Certificate(), kp.CertPEM(), kp.KeyPEM()
	r.log.Info("new serving certificate", "notAfter", kp.Certificate().NotAfter)
	return nil
}

// untilRenewal is how long until a certificate expiring at notAfter is due for renewal.
func untilRenewal(now, notAfter time.Time, renewBefore time.Duration) time.Duration {
	return notAfter.Add(-renewBefore).Sub(now)
}

// stillValid drops the expired certificates; the current CA is never expired here.
func stillValid(trusted []*x509.Certificate, now time.Time) []*x509.Certificate {
	return slices.DeleteFunc(slices.Clone(trusted), func(c *x509.Certificate) bool { return now.After(c.NotAfter) })
}

// namesMatch says whether a serving certificate carries exactly the names it should.
func (r *Rotator) namesMatch(c *x509.Certificate) bool {
	if c == nil || !slices.Equal(c.DNSNames, r.opts.DNSNames) || len(c.IPAddresses) != len(r.opts.IPs) {
		return false
	}
	for i, ip := range r.opts.IPs {
		if !ip.Equal(c.IPAddresses[i]) {
			return false
		}
	}
	return true
}

// writeSecret creates or updates the Secret with st, keeping its other keys, labels and
// annotations. An update conflicts, and fails the pass, when another writer changed it since it
// was read.
func (r *Rotator) writeSecret(ctx context.Context, existing *corev1.Secret, st state) (*corev1.Secret, error) {
	secrets := r.opts.Client.CoreV1().Secrets(r.opts.Namespace)
	annotations := map[string]string{}
	if !st.publishedAt.IsZero() {
		annotations[PublishedAnnotation] = st.publishedAt.UTC().Format(time.RFC3339)
	}
	if existing == nil {
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: r.opts.SecretName, Namespace: r.opts.Namespace, Annotations: annotations},
			Type:       corev1.SecretTypeTLS,
			Data:       st.secretData(),
		}
		created, err := secrets.Create(ctx, s, metav1.CreateOptions{FieldManager: fieldManager})
		if err != nil {
			return nil, fmt.Errorf("creating Secret %s/%s: %w", r.opts.Namespace, r.opts.SecretName, err)
		}
		return created, nil
	}
	s := existing.DeepCopy()
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	for k, v := range st.secretData() {
		s.Data[k] = v
	}
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	delete(s.Annotations, PublishedAnnotation)
	for k, v := range annotations {
		s.Annotations[k] = v
	}
	updated, err := secrets.Update(ctx, s, metav1.UpdateOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("updating Secret %s/%s: %w", r.opts.Namespace, r.opts.SecretName, err)
	}
	return updated, nil
}

// publish sets bundle as the caBundle of every webhook of the owned configurations and of the
// conversion webhooks of the owned CRDs, updating only what differs. An owned object that does
// not exist yet is skipped: it is published when it appears (its watch triggers a pass).
func (r *Rotator) publish(ctx context.Context, bundle []byte) error {
	admission := r.opts.Client.AdmissionregistrationV1()
	for _, name := range r.opts.MutatingWebhookConfigurations {
		c, err := admission.MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		if err := r.publishIn("MutatingWebhookConfiguration", name, err, func() bool {
			return setBundles(bundle, func(yield func(*admissionregistrationv1.WebhookClientConfig) bool) {
				for i := range c.Webhooks {
					if !yield(&c.Webhooks[i].ClientConfig) {
						return
					}
				}
			})
		}, func() error {
			_, err := admission.MutatingWebhookConfigurations().Update(ctx, c, metav1.UpdateOptions{FieldManager: fieldManager})
			return err
		}); err != nil {
			return err
		}
	}
	for _, name := range r.opts.ValidatingWebhookConfigurations {
		c, err := admission.ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		if err := r.publishIn("ValidatingWebhookConfiguration", name, err, func() bool {
			return setBundles(bundle, func(yield func(*admissionregistrationv1.WebhookClientConfig) bool) {
				for i := range c.Webhooks {
					if !yield(&c.Webhooks[i].ClientConfig) {
						return
					}
				}
			})
		}, func() error {
			_, err := admission.ValidatingWebhookConfigurations().Update(ctx, c, metav1.UpdateOptions{FieldManager: fieldManager})
			return err
		}); err != nil {
			return err
		}
	}
	for _, name := range r.opts.CustomResourceDefinitions {
		crds := r.opts.APIExtensions.ApiextensionsV1().CustomResourceDefinitions()
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)
		}
		conv := crd.Spec.Conversion
		if conv == nil || conv.Webhook == nil || conv.Webhook.ClientConfig == nil || bytes.Equal(conv.Webhook.ClientConfig.CABundle, bundle) {
			continue
		}
		conv.Webhook.ClientConfig.CABundle = bundle
		if _, err := crds.Update(ctx, crd, metav1.UpdateOptions{FieldManager: fieldManager}); err != nil {
			return fmt.Errorf("updating the conversion caBundle of CustomResourceDefinition %s: %w", name, err)
		}
		r.log.Info("caBundle published", "customresourcedefinition", name)
	}
	return nil
}

// publishIn finishes publishing in one configuration, read with getErr: a missing one is
// skipped, set changes the caBundles and says whether any changed, update writes them.
func (r *Rotator) publishIn(kind, name string, getErr error, set func() bool, update func() error) error {
	switch {
	case apierrors.IsNotFound(getErr):
		return nil
	case getErr != nil:
		return fmt.Errorf("reading %s %s: %w", kind, name, getErr)
	case !set():
		return nil
	}
	if err := update(); err != nil {
		return fmt.Errorf("updating the caBundle of %s %s: %w", kind, name, err)
	}
	r.log.Info("caBundle published", "kind", kind, "name", name)
	return nil
}

// setBundles sets bundle in each client configuration and says whether any changed.
func setBundles(bundle []byte, configs iter.Seq[*admissionregistrationv1.WebhookClientConfig]) bool {
	changed := false
	for c := range configs {
		if !bytes.Equal(c.CABundle, bundle) {
			c.CABundle, changed = bundle, true
		}
	}
	return changed
}
