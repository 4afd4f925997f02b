package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/admitkit/admit/internal/callout"
)

// ServiceResolver turns a service reference into the address to dial. The default dials
// <name>.<namespace>.svc:<port>, which only resolves inside a cluster; `admit review` and tests
// map services to loopback addresses. TLS is always verified for <name>.<namespace>.svc.
type ServiceResolver func(namespace, name string, port int32) (hostport string, err error)

// clientTimeout caps every webhook call, as the apiserver's webhook client does.
const clientTimeout = 30 * time.Second

// clientCache keeps one HTTP client per client configuration, as the apiserver does, so
// connections are reused across admissions.
type clientCache struct {
	resolver ServiceResolver
	// transport, when set, replaces the TLS transports (Options.Transport).
	transport http.RoundTripper
	clients   callout.Clients[string]
}

func newClientCache(resolver ServiceResolver, transport http.RoundTripper) *clientCache {
	return &clientCache{resolver: resolver, transport: transport}
}

// client returns the HTTP client and the URL for cc.
func (c *clientCache) client(cc admissionregistrationv1.WebhookClientConfig) (*http.Client, *url.URL, error) {
	target, serverName, err := webhookURL(cc)
	if err != nil {
		return nil, nil, err
	}
	key, err := json.Marshal(cc)
	if err != nil {
		return nil, nil, err
	}
	client, err := c.clients.Get(string(key), func() (*http.Client, error) {
		if c.transport != nil {
			return &http.Client{Transport: c.transport, Timeout: clientTimeout, CheckRedirect: callout.RefuseRedirects}, nil
		}
		opts := callout.ClientOptions{
			CABundle: cc.CABundle, ServerName: serverName, DialTimeout: 30 * time.Second,
			MaxIdleConnsPerHost: 100, Timeout: clientTimeout,
			// Like the apiserver, only loopback URL webhooks may use HTTP/2.
			HTTP2: cc.URL != nil && isLoopback(target.Hostname()),
		}
		if cc.Service != nil {
			opts.Dial = c.serviceDialer(*cc.Service)
		}
		client, err := callout.NewClient(opts)
		if errors.Is(err, callout.ErrNoCertificates) {
			// kube-apiserver's words.
			return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		return client, err
	})
	return client, target, err
}

// serviceDialer dials a service reference: <name>.<namespace>.svc:<port>, or where the
// ServiceResolver maps it.
func (c *clientCache) serviceDialer(svc admissionregistrationv1.ServiceReference) func(ctx context.Context, network, _ string) (net.Conn, error) {
	port := int32(443)
	if svc.Port != nil {
		port = *svc.Port
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		addr := net.JoinHostPort(svc.Name+"."+svc.Namespace+".svc", strconv.Itoa(int(port)))
		if c.resolver != nil {
			resolved, err := c.resolver(svc.Namespace, svc.Name, port)
			if err != nil {
				return nil, err
			}
			addr = resolved
		}
		return dialer.DialContext(ctx, network, addr)
	}
}

// webhookURL is the URL a client config points at and the TLS server name to verify.
func webhookURL(cc admissionregistrationv1.WebhookClientConfig) (*url.URL, string, error) {
	switch {
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return nil, "", fmt.Errorf("Unparsable URL: %w", err)
		}
		// client-go joins the path onto "/", which cleans it: "/validate/" is called as "/validate".
		u.Path, u.RawPath = path.Join("/", u.Path), ""
		return u, u.Hostname(), nil
	case cc.Service != nil:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		host := cc.Service.Name + "." + cc.Service.Namespace + ".svc"
		servicePath := "/"
		if cc.Service.Path != nil {
			servicePath = path.Join("/", *cc.Service.Path)
		}
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(host, strconv.Itoa(int(port))), Path: servicePath}, host, nil
	}
	return nil, "", errors.New("webhook configuration must have either service or URL")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
