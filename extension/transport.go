package extension

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// clientKey identifies the TLS identity a client verifies: one client (and connection pool) per
// CA bundle and server name, shared by every extension behind the same certificate.
type clientKey struct {
	caBundle   string
	serverName string // "" for URL extensions: Go verifies the URL's host
}

// clientCache builds HTTP clients lazily and keeps them for the Caller's lifetime. It grows with
// the number of distinct CA bundles and service names only, not with calls.
type clientCache struct {
	mu      sync.Mutex
	clients map[clientKey]*http.Client
}

func (c *clientCache) get(caBundle []byte, serverName string) (*http.Client, error) {
	key := clientKey{caBundle: string(caBundle), serverName: serverName}
	c.mu.Lock()
	defer c.mu.Unlock()
	if client, ok := c.clients[key]; ok {
		return client, nil
	}
	client, err := newHTTPClient(caBundle, serverName)
	if err != nil {
		return nil, err
	}
	if c.clients == nil {
		c.clients = map[clientKey]*http.Client{}
	}
	c.clients[key] = client
	return client, nil
}

func (c *clientCache) closeIdleConnections() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, client := range c.clients {
		client.CloseIdleConnections()
	}
}

func (c *clientCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.clients)
}

func newHTTPClient(caBundle []byte, serverName string) (*http.Client, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("caBundle contains no PEM-encoded certificate")
		}
		tlsConfig.RootCAs = pool
	}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: MaxTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: DefaultTimeout,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		// HTTP/1.1 only (no ForceAttemptHTTP2): one multiplexed HTTP/2 connection would pin every
		// call to a single replica behind a Service (kubernetes/kubernetes#75791).
	}
	return &http.Client{Transport: transport, CheckRedirect: refuseRedirects}, nil
}

// refuseRedirects hands the 3xx answer back instead of following it: an extension must not be
// able to point the caller at another address (CVE-2020-8561 for kube-apiserver webhooks).
func refuseRedirects(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}

// withTimeoutQuery tells the extension how long the caller will wait: ?timeout=<N>s, the time
// left before deadline rounded up to whole seconds (the kube-apiserver convention).
func withTimeoutQuery(u *url.URL, deadline time.Time) *url.URL {
	seconds := (time.Until(deadline) + time.Second - 1) / time.Second
	seconds = max(seconds, 1)
	out := *u
	q := out.Query()
	q.Set("timeout", (seconds * time.Second).String())
	out.RawQuery = q.Encode()
	return &out
}

// readAnswer returns the body of a 200 answer, or a description of why the answer is unusable.
func readAnswer(resp *http.Response, limit int64) ([]byte, CallingErrorReason, error) {
	if resp.StatusCode != http.StatusOK {
		excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, maxLoggedBody+1))
		if location := resp.Header.Get("Location"); location != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			return nil, ReasonHTTPStatus, fmt.Errorf("HTTP status %d, want 200: redirect to %q refused", resp.StatusCode, location)
		}
		return nil, ReasonHTTPStatus, fmt.Errorf("HTTP status %d, want 200: body %q", resp.StatusCode, quoteBody(excerpt))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, ReasonTransport, fmt.Errorf("reading response body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, ReasonResponseTooLarge, fmt.Errorf("response body exceeds %d bytes", limit)
	}
	return body, "", nil
}

// quoteBody shortens body for errors and logs.
func quoteBody(body []byte) string {
	if len(body) > maxLoggedBody {
		return string(body[:maxLoggedBody]) + "..."
	}
	return string(body)
}
