package extension

import (
	"github.com/prometheus/client_golang/prometheus"
)

// This file lends unexported pieces to the external tests.

// DecodeResponse exposes decodeResponse to the fuzz targets.
func DecodeResponse(raw []byte, resp Response) error { return decodeResponse(raw, resp) }

// ExtensionsFromHandlers exposes discovery-response validation to the fuzz targets.
func ExtensionsFromHandlers(server ExtensionServer, handlers []DiscoveredHandler) ([]Extension, error) {
	extensions, errs := extensionsFrom(server, handlers)
	if len(errs) > 0 {
		return nil, joinFieldErrors(errs)
	}
	return extensions, nil
}

// NewCallerWithSink returns a Caller whose metrics sink is sink instead of Prometheus, so tests
// can block it. The dropped-observations counter is still registered on opts.Metrics.
func NewCallerWithSink(registry *Registry, opts Options, sink func()) (*Caller, error) {
	return newCaller(registry, opts, sinkFunc(sink), []prometheus.Collector{})
}

type sinkFunc func()

func (f sinkFunc) observe(observation) { f() }

// HTTPClientCount reports how many HTTP clients c has built.
func HTTPClientCount(c *Caller) int { return c.clients.Len() }
