package devsession

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admitkit/admit/config"
)

// The labels every copy carries: who manages it, and which session made it.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "admit-dev"
	SessionLabel   = "admit.dev/dev-session"
)

// Session is one run of webhooks pointed at this machine.
type Session struct {
	// ID labels the session's copies (SessionLabel), e.g. the time it started.
	ID string
	// Prefix is put before each configuration's name, so that the copies stand beside the
	// originals.
	Prefix string
	// Base is where the webhooks are called, https://HOST:PORT; each keeps its own path.
	Base url.URL
	// CABundle is the PEM CA the apiserver verifies the local server with.
	CABundle []byte
}

// Rewrite copies set's configurations under the prefix, every webhook calling Base.
func (s Session) Rewrite(set *config.Set) ([]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration) {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: s.Prefix + name, Labels: map[string]string{ManagedByLabel: ManagedByValue, SessionLabel: s.ID}}
	}
	var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
	for _, m := range set.Mutating {
		c := m.Config.DeepCopy()
		c.ObjectMeta = meta(c.Name)
		for i := range c.Webhooks {
			c.Webhooks[i].ClientConfig = s.clientConfig(c.Webhooks[i].ClientConfig)
		}
		mutating = append(mutating, c)
	}
	var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	for _, v := range set.Validating {
		c := v.Config.DeepCopy()
		c.ObjectMeta = meta(c.Name)
		for i := range c.Webhooks {
			c.Webhooks[i].ClientConfig = s.clientConfig(c.Webhooks[i].ClientConfig)
		}
		validating = append(validating, c)
	}
	return mutating, validating
}

// clientConfig keeps a webhook's path and sends it to Base.
func (s Session) clientConfig(cc admissionregistrationv1.WebhookClientConfig) admissionregistrationv1.WebhookClientConfig {
	p := "/"
	switch {
	case cc.Service != nil && cc.Service.Path != nil:
		p = *cc.Service.Path
	case cc.URL != nil:
		if u, err := url.Parse(*cc.URL); err == nil && u.Path != "" {
			p = u.Path
		}
	}
	target := s.Base
	target.Path = path.Clean("/" + p)
	u := target.String()
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: s.CABundle}
}

// Apply creates the copies in the cluster, in order, and returns the names it created ("KIND
// NAME"); it stops at the first that fails.
func Apply(ctx context.Context, client kubernetes.Interface, mutating []*admissionregistrationv1.MutatingWebhookConfiguration, validating []*admissionregistrationv1.ValidatingWebhookConfiguration) ([]string, error) {
	api := client.AdmissionregistrationV1()
	var applied []string
	for _, m := range mutating {
		if _, err := api.MutatingWebhookConfigurations().Create(ctx, m, metav1.CreateOptions{}); err != nil {
			return applied, fmt.Errorf("applying MutatingWebhookConfiguration %s: %w", m.Name, err)
		}
		applied = append(applied, "MutatingWebhookConfiguration "+m.Name)
	}
	for _, v := range validating {
		if _, err := api.ValidatingWebhookConfigurations().Create(ctx, v, metav1.CreateOptions{}); err != nil {
			return applied, fmt.Errorf("applying ValidatingWebhookConfiguration %s: %w", v.Name, err)
		}
		applied = append(applied, "ValidatingWebhookConfiguration "+v.Name)
	}
	return applied, nil
}

// Delete deletes the copies of session id and returns how many it deleted.
func Delete(ctx context.Context, client kubernetes.Interface, id string) (int, error) {
	return deleteMatching(ctx, client, SessionLabel+"="+id)
}

// DeleteAll deletes the copies every session left and returns how many it deleted.
func DeleteAll(ctx context.Context, client kubernetes.Interface) (int, error) {
	return deleteMatching(ctx, client, ManagedByLabel+"="+ManagedByValue)
}

func deleteMatching(ctx context.Context, client kubernetes.Interface, selector string) (int, error) {
	api := client.AdmissionregistrationV1()
	n := 0
	var errs []error
	ms, err := api.MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return 0, fmt.Errorf("listing mutating webhook configurations: %w", err)
	}
	for _, m := range ms.Items {
		if err := api.MutatingWebhookConfigurations().Delete(ctx, m.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	vs, err := api.ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return n, fmt.Errorf("listing validating webhook configurations: %w", err)
	}
	for _, v := range vs.Items {
		if err := api.ValidatingWebhookConfigurations().Delete(ctx, v.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
