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
//
// # Files
//
//	ca.go       CA, KeyPair, NewCA, ParseCA: a CA, and the serving and client certificates it issues
//	files.go    WriteFiles, WriteFilesPEM: ca.crt, tls.crt and tls.key, each replaced atomically
//	pem.go      ParseCertificatesPEM, and the PEM encoding of certificates and keys
//	watcher.go  Watcher: a certificate and key served from files and reloaded when they change
//	capool.go   CAPoolWatcher: a pool of CA certificates from a bundle file, reloaded likewise
//	reload.go   what both watchers share: file events and polling, a reload when the contents change
package certs
