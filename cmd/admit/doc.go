// Command admit is a toolkit for Kubernetes admission webhooks: serve them, run them offline
// exactly as kube-apiserver does, lint their configurations and develop them against a cluster.
//
//	main.go  klog silenced, SIGINT and SIGTERM cancelling the run, cli.Run's exit code
package main
