// Package callout is the HTTPS client side that package dispatch (admission webhooks) and
// package extension (Runtime-SDK-style extensions) share: one HTTP client per TLS identity kept
// for the caller's lifetime, certificates verified against the configuration's CA bundle,
// redirects refused, HTTP/2 only where it cannot pin calls to one replica, and the ?timeout=
// query kube-apiserver sends. What each caller decides on its own — the URL a configuration
// names, what a service name resolves to, error texts — stays with the caller.
//
//	clients.go    Clients: the per-identity client cache
//	transport.go  NewClient: the TLS transport, the redirect rule, the timeout query
package callout
