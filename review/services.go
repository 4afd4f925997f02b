package review

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/config"
)

// Services places the services webhooks call, as `admit review --resolve` and a test file's
// resolve entries do: NAMESPACE/NAME=HOST:PORT. Its Resolve is a Config.ServiceResolver.
type Services struct {
	addrs map[string]string
	// DNS looks up a service it does not place by its cluster DNS name (NAME.NAMESPACE.svc), as
	// inside its cluster; without it, such a service is an error, found when the Session is
	// created.
	DNS bool
}

// ParseServices reads NAMESPACE/NAME=HOST:PORT entries.
func ParseServices(entries []string) (*Services, error) {
	s := &Services{addrs: map[string]string{}}
	for _, e := range entries {
		key, addr, ok := strings.Cut(e, "=")
		ns, name, okName := strings.Cut(key, "/")
		if !ok || !okName || ns == "" || name == "" || addr == "" {
			return nil, fmt.Errorf("%q: want NAMESPACE/SERVICE=HOST:PORT", e)
		}
		s.addrs[key] = addr
	}
	return s, nil
}

// errNotPlaced is Resolve's error for a service it does not place.
var errNotPlaced = errors.New("not placed")

// Resolve is where a webhook's call to a service goes.
func (s *Services) Resolve(namespace, name string, port int32) (string, error) {
	if addr, ok := s.addrs[namespace+"/"+name]; ok {
		return addr, nil
	}
	if s.DNS {
		return fmt.Sprintf("%s.%s.svc:%d", name, namespace, port), nil
	}
	return "", errNotPlaced
}

// DNSNames are the names calls to the placed services verify (NAME.NAMESPACE.svc): what a
// serving certificate for them must hold.
func (s *Services) DNSNames() []string {
	var names []string
	for key := range s.addrs {
		ns, name, _ := strings.Cut(key, "/")
		names = append(names, name+"."+ns+".svc")
	}
	sort.Strings(names)
	return names
}

// admission copies the Config's webhook configurations as the apiserver stores them —
// defaulted, given DefaultCABundle where they have none — and checks them as it checks a
// create: a configuration built in Go without its defaults would match nothing (a nil
// namespaceSelector), or time out at a second the apiserver refuses.
func admission(cfg Config) (Admission, error) {
	set, err := config.FromObjects(webhookObjects(cfg)...)
	if err != nil {
		return Admission{}, err
	}
	if _, err := set.Validate(); err != nil {
		return Admission{}, fmt.Errorf("the webhook configurations: %w", err)
	}
	a := Admission{Mutating: set.MutatingConfigs(), Validating: set.ValidatingConfigs(), Policies: cfg.Policies}
	if len(cfg.DefaultCABundle) > 0 {
		for _, c := range a.Mutating {
			for i := range c.Webhooks {
				fillCABundle(&c.Webhooks[i].ClientConfig, cfg.DefaultCABundle)
			}
		}
		for _, c := range a.Validating {
			for i := range c.Webhooks {
				fillCABundle(&c.Webhooks[i].ClientConfig, cfg.DefaultCABundle)
			}
		}
	}
	return a, nil
}

func webhookObjects(cfg Config) []runtime.Object {
	var out []runtime.Object
	for _, c := range cfg.Mutating {
		out = append(out, c)
	}
	for _, c := range cfg.Validating {
		out = append(out, c)
	}
	return out
}

func fillCABundle(cc *admissionregistrationv1.WebhookClientConfig, bundle []byte) {
	if len(cc.CABundle) == 0 {
		cc.CABundle = bundle
	}
}

// checkServices refuses webhooks that call a service the Config's ServiceResolver does not
// place: off a cluster, NAME.NAMESPACE.svc resolves nowhere (or, worse, somewhere), and every
// call would fail after a DNS query that leaves the machine.
func checkServices(a Admission, resolve func(namespace, name string, port int32) (string, error), terms Terms) error {
	var missing []string
	seen := map[string]bool{}
	check := func(kind, configuration, webhook string, cc admissionregistrationv1.WebhookClientConfig) {
		if cc.Service == nil {
			return
		}
		key := cc.Service.Namespace + "/" + cc.Service.Name
		if seen[key] {
			return
		}
		seen[key] = true
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		if resolve != nil {
			if _, err := resolve(cc.Service.Namespace, cc.Service.Name, port); err == nil {
				return
			} else if !errors.Is(err, errNotPlaced) {
				missing = append(missing, fmt.Sprintf("webhook %q of %s %q calls service %s: %v", webhook, kind, configuration, key, err))
				return
			}
		}
		missing = append(missing, fmt.Sprintf("webhook %q of %s %q calls service %s: give %s %s=HOST:PORT", webhook, kind, configuration, key, terms.Resolve, key))
	}
	for _, c := range a.Mutating {
		for _, w := range c.Webhooks {
			check("MutatingWebhookConfiguration", c.Name, w.Name, w.ClientConfig)
		}
	}
	for _, c := range a.Validating {
		for _, w := range c.Webhooks {
			check("ValidatingWebhookConfiguration", c.Name, w.Name, w.ClientConfig)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	hint := "a service's cluster DNS name resolves only in its cluster"
	if terms.ResolveDNS != "" {
		hint += "; " + terms.ResolveDNS + " looks it up anyway"
	}
	return fmt.Errorf("%s\n(%s)", strings.Join(missing, "\n"), hint)
}

// conversion places the CRDs' conversion webhooks as the webhooks are placed. A conversion
// webhook is called only when an object must change version, so a service the resolver does not
// place is found then: the conversion fails with an error saying how to place it.
func (s *Session) conversion() chain.Conversion {
	resolve := s.cfg.ServiceResolver
	terms := s.cfg.Terms
	return chain.Conversion{
		DefaultCABundle: s.cfg.DefaultCABundle,
		ServiceResolver: func(namespace, name string, port int32) (string, error) {
			if resolve != nil {
				addr, err := resolve(namespace, name, port)
				if err == nil || !errors.Is(err, errNotPlaced) {
					return addr, err
				}
			}
			return "", fmt.Errorf("%w: give %s %s/%s=HOST:PORT", chain.ErrServiceNotPlaced, terms.Resolve, namespace, name)
		},
	}
}
