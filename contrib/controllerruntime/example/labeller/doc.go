// Command labeller is an operator's webhook server as controller-runtime users write it, with
// admit's Registry mounted on controller-runtime's webhook server: a mutating webhook labels
// every Pod it is sent with seen-by=admit. It prints the MutatingWebhookConfiguration for a
// server reached at --url (caBundle from --cert-dir/ca.crt) with --print-config, and serves
// otherwise. The e2e suite runs it behind a real kube-apiserver.
//
//	labeller --cert-dir DIR --port 9443
//	labeller --cert-dir DIR --print-config --url https://127.0.0.1:9443
//
//	main.go  the flags, the labelling webhook, the Registry mounted on controller-runtime's server
package main
