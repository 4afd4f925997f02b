// Package loadgen sends HTTP requests at a fixed rate over a fixed number of connections and
// records the outcome of every one, so a reliability test can assert that none was lost and a
// report can say how long they took.
//
// It loads a webhook server the way kube-apiserver does: HTTP/1.1 over TLS, keep-alive
// connections reused across requests, one request at a time on each. Requests are scheduled at
// Options.Rate per second whatever the server does; a request waits for a free connection, and
// its latency runs from the time it was due, so a server that falls behind is charged for the
// queue it builds. A run is bounded in requests (Rate × Duration) and in time (Duration plus
// RequestTimeout for the last answers).
//
// Every request ends in one Outcome, and the difference between the last two is the point of the
// package:
//
//   - OK: answered, and Options.Check accepted the answer;
//   - Rejected: answered, but Check refused it (a wrong status or body);
//   - NotConnected: no connection could be made (refused, or the TLS handshake failed), so the
//     server never accepted the request — what a client sees once a server has closed its
//     listener;
//   - Broken: the request went out on an established connection and no answer came back (reset,
//     EOF, timeout) — a request lost in flight.
//
// # Files
//
//	loadgen.go  Options, Run, Report, Outcome: requests sent on schedule, each one's end recorded
package loadgen
