package extension

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/admitkit/admit/internal/callout"
)

// clientKey identifies the TLS identity a client verifies: one client (and connection pool) per
// CA bundle and server name, shared by every extension behind the same certificate.
type clientKey struct {
	caBundle   string
	serverName string // "" for URL extensions: Go verifies the URL's host
}

// client returns the HTTP client of an identity, built the first time it is called.
func (c *Caller) client(caBundle []byte, serverName string) (*http.Client, error) {
	return c.clients.Get(clientKey{caBundle: string(caBundle), serverName: serverName}, func() (*http.Client, error) {
		client, err := callout.NewClient(callout.ClientOptions{
			CABundle: caBundle, ServerName: serverName,
			Proxy: http.ProxyFromEnvironment, DialTimeout: MaxTimeout, MaxIdleConnsPerHost: 16,
		})
		if errors.Is(err, callout.ErrNoCertificates) {
			return nil, errors.New("caBundle contains no PEM-encoded certificate")
		}
		return client, err
	})
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
