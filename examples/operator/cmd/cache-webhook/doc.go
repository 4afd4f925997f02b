// Command cache-webhook serves the Cache operator's webhooks: defaulting, validation, the Pod
// webhook of cache clients and CRD conversion, over TLS with the certificate in --cert-dir
// (reloaded when it changes).
//
//	CACHE_DEFAULT_IMAGE=registry.example.com/cache:7.2 cache-webhook --cert-dir /etc/cache-webhook/tls
//
// With --cert-secret, the server keeps its own certificate in the cluster (certs/rotator): a CA
// and a serving certificate for <service>.<namespace>.svc in that Secret, renewed before they
// expire, the CA published in the caBundle of the configurations named --config-name and of the
// CRD's conversion webhook. Every replica runs it; one, elected, writes.
//
//	cache-webhook --cert-secret cache-webhook-tls --service cache-webhook --namespace cache-system
//
// --print-config prints the webhook configurations and the CRD's spec.conversion for a Service
// (--service, --namespace) or a URL (--url), with the CA of --ca-file as their caBundle.
//
//	main.go  the flags; the Registry served, its certificate from files or a rotator; --print-config
package main
