// Package quickstart is a small webhook server written with admit: a mutating webhook that
// labels Pods and adds a sidecar container, and a validating webhook that rejects ConfigMaps
// whose keys are not lower-case DNS subdomains. The e2e suite serves it to a real kube-apiserver;
// cmd/demo runs it in-process on an example Pod.
//
//	quickstart.go  Sidecar, ConfigMapKeys, NewRegistry
package quickstart
