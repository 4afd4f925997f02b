package callout

import (
	"net/http"
	"sync"
)

// Clients keeps one HTTP client per key (a TLS identity: CA bundle, server name, where to dial)
// for its owner's lifetime, so that connections are reused across calls. It grows with the
// number of distinct keys only, never with calls. The zero Clients is ready to use.
type Clients[K comparable] struct {
	mu      sync.Mutex
	clients map[K]*http.Client
}

// Get returns key's client, building it with build the first time. A failed build is not kept:
// the next call tries again.
func (c *Clients[K]) Get(key K, build func() (*http.Client, error)) (*http.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if client, ok := c.clients[key]; ok {
		return client, nil
	}
	client, err := build()
	if err != nil {
		return nil, err
	}
	if c.clients == nil {
		c.clients = map[K]*http.Client{}
	}
	c.clients[key] = client
	return client, nil
}

// CloseIdleConnections closes every client's idle connections.
func (c *Clients[K]) CloseIdleConnections() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, client := range c.clients {
		client.CloseIdleConnections()
	}
}

// Len is how many clients were built.
func (c *Clients[K]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.clients)
}
