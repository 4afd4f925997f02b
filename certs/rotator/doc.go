// Package rotator manages a webhook server's certificates inside the cluster, without
// cert-manager: a self-signed CA and a serving certificate kept in a Secret, renewed before they
// expire, and the CA published in the caBundle of the webhook configurations and CRD conversion
// webhooks the server owns.
//
// Every replica of the server runs a Rotator. One of them, elected through a Lease, is the
// writer: it creates or renews the Secret and patches the caBundles. Every replica, the writer
// included, copies the Secret's tls.crt, tls.key and ca.crt into a directory the webhook server
// reads its certificate from (webhook.ServerOptions.CertFile and KeyFile), as soon as the Secret
// changes: no Secret volume, no kubelet sync delay.
//
// # Rotation without a failed call
//
// A serving certificate is renewed by the same CA, which every caBundle already trusts. A CA is
// renewed in two steps: the new CA is added to the caBundles next to the old one (the Secret's
// ca.crt holds both, newest first), and only once PublishGrace has passed since every caBundle
// held it, long enough for kube-apiserver's informers to see the change, is a serving
// certificate signed by it handed to the servers. Until then they keep serving the certificate
// of the old CA. Old CAs leave the bundle when they expire.
//
// # What the writer may touch
//
// The Rotator reads and writes only the objects it is given by name, and watches them with a
// field selector on their name, so its RBAC can be limited by resourceNames: get, list, watch,
// update and patch on the Secret, the Lease, each named webhook configuration and CRD, plus
// create on Secrets and Leases in its namespace (create cannot be limited by name). deploy/
// holds such rules.
//
// # Files
//
//	rotator.go     Options, New, Run: leader election, the writer's loop, the file sync
//	reconcile.go   one pass of the writer: the Secret's state, what to renew, the caBundles
//	secret.go      the Secret's layout, parsing and building it
package rotator
