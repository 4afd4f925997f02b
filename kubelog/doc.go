// Package kubelog routes klog, through which the Kubernetes code admit runs (kube-apiserver's
// admission plugins, its policy plugins, the field manager, client-go) logs process-wide: its
// errors reach a writer or a server's slog logger, its informational chatter does not. The
// commands that review objects discard it (what a message means for an admission is in that
// admission's result); admit serve keeps it in its own log. A Go program reviewing objects is
// quiet by default too (Quiet, which package chain calls): to see Kubernetes' errors, call
// Route(os.Stderr) or RouteTo(logger) before the first review.
//
//	kubelog.go  Route, RouteTo: klog's errors to a writer or a logger, the rest dropped; Quiet:
//	            discarded unless routed; a handler whose destination can change while klog uses it
package kubelog
