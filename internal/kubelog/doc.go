// Package kubelog routes klog, through which the Kubernetes code admit runs (kube-apiserver's
// admission plugins, its policy plugins) logs process-wide: its errors reach a writer like
// admit's own, its informational chatter does not.
package kubelog
