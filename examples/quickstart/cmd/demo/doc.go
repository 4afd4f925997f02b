// Command demo serves the quickstart webhooks over TLS on loopback, sends them an example Pod and
// ConfigMap the way kube-apiserver would, and prints what came back: the Pod with the patch
// applied, and the ConfigMap's denial.
//
//	main.go  the certificates, the server, the two reviews sent and what came back printed
package main
