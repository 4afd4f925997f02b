package dispatch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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
	mu        sync.Mutex
	clients   map[string]*http.Client
}

func newClientCache(resolver ServiceResolver, transport http.RoundTripper) *clientCache {
	return &clientCache{resolver: resolver, transport: transport, clients: map[string]*http.Client{}}
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
	c.mu.Lock()
	defer c.mu.Unlock()
	if client, ok := c.clients[string(key)]; ok {
		return client, target, nil
	}
	if c.transport != nil {
		client := &http.Client{Transport: c.transport, Timeout: clientTimeout, CheckRedirect: noRedirects}
		c.clients[string(key)] = client
		return client, target, nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if len(cc.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cc.CABundle) {
			return nil, nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		tlsConfig.RootCAs = pool
	}
	transport := &http.Transport{
		TLSClientConfig:     tlsConfig,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if cc.Service != nil {
		svc := *cc.Service
		port := int32(443)
		if svc.Port != nil {
			port = *svc.Port
		}
		resolve := c.resolver
		transport.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			addr := net.JoinHostPort(svc.Name+"."+svc.Namespace+".svc", strconv.Itoa(int(port)))
			if resolve != nil {
				resolved, err := resolve(svc.Namespace, svc.Name, port)
				if err != nil {
					return nil, err
				}
				addr = resolved
			}
			return dialer.DialContext(ctx, network, addr)
		}
	} else {
		transport.DialContext = dialer.DialContext
	}
	// Like the apiserver, only loopback URL webhooks may use HTTP/2; everything else uses
	// HTTP/1.1 so that concurrent calls spread over a service's endpoints.
	if cc.URL != nil && isLoopback(target.Hostname()) {
		transport.ForceAttemptHTTP2 = true
	} else {
		tlsConfig.NextProtos = []string{"http/1.1"}
	}
	client := &http.Client{
		Transport:     transport,
		Timeout:       clientTimeout,
		CheckRedirect: noRedirects,
	}
	c.clients[string(key)] = client
	return client, target, nil
}

// noRedirects is a deliberate difference from kube-apiserver, which follows redirects: a webhook
// must not be able to send the caller's request elsewhere (CVE-2020-8561). The 3xx answer itself
// is returned and becomes a calling error.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

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
