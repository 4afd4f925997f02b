// Package loadgen sends the same HTTP request over a fixed number of keep-alive connections and
// records how long each answer took.
//
// It loads a webhook server the way kube-apiserver does: HTTP/1.1 (the apiserver never calls
// webhooks over HTTP/2) over TLS, several connections reused across requests. Two modes:
//
//   - maximum throughput (Options.Rate zero): each connection sends its next request as soon as
//     the previous answer arrived;
//   - fixed rate: requests are scheduled at Rate per second whatever the server does, and latency
//     is measured from the scheduled time, so a server that falls behind is charged for the queue
//     it builds (no "coordinated omission").
//
// Every run is bounded both in requests and in time.
//
//	loadgen.go  Options, Run, Result: requests at maximum throughput or at a fixed rate, latencies
package loadgen
