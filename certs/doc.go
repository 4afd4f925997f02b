// Package certs issues and reloads the TLS material a webhook server needs.
//
// Issuing: NewCA creates an ECDSA P-256 certificate authority; the CA issues serving
// certificates (for the webhook server, checked by the apiserver against the caBundle of a
// webhook configuration) and client certificates (for servers that authenticate the
// apiserver). WriteFiles lays them out with the key names of a kubernetes.io/tls Secret.
//
// Reloading: Watcher serves a certificate and key from files and picks up replacements
// without a restart, including the symlink swap a Kubernetes Secret volume performs.
// CAPoolWatcher does the same for a bundle of client CA certificates.
//
// ParseCertificatesPEM reads a caBundle and refuses anything but CERTIFICATE blocks, so a
// private key can never be published in a cluster-scoped object by mistake.
package certs
