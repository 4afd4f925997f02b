// Package reliability measures admit's promises under load, certificate rotation, restarts and
// hostile input, on loopback only. It has no code of its own besides the loadgen package: the
// scenarios are its tests, and docs/reliability.md lists each one with what is promised, the
// measured result and the test that proves it.
//
// Every scenario runs in two sizes, chosen by build tag:
//
//   - by default (go test ./...), a short version of each — e.g. 200 requests per second for
//     5 seconds — that asserts correctness only: zero lost requests, exact counts, clear errors;
//   - with -tags reliability (make reliability), the full version: 1,000 requests per second for
//     60 seconds, the default drain delay and grace period of admit serve, and a report of the
//     measured latencies, reload times and peak memory in the test log.
//
// Tests never assert on timing. Where a promise has a deadline (a rotated certificate is served
// within 10 s), the test waits that long at most and fails if the promise was not kept; every
// loop is bounded in count and in time.
//
// The serving-side scenarios run the real `admit serve` binary, built once per test run, and
// in-process webhook.Servers where a handler must misbehave; the calling side runs dispatch and
// extension against a fake webhook server whose paths hang, reset, redirect or answer garbage.
package reliability
