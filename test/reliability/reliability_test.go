package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/admitkit/admit/test/reliability/report"
)

// resultsDirEnv names the directory a run writes its results to, for docs/reliability.md (make
// reliability sets it); unset, nothing is written.
const resultsDirEnv = "ADMIT_RELIABILITY_RESULTS"

// TestReliability runs every scenario, then checks that none left a goroutine behind. The short
// profile runs them all at once: they mostly wait — on a fixed request rate, drain delays,
// timeouts, slow clients — so they share the machine well; they are subtests started together
// rather than parallel tests, which go test would run only GOMAXPROCS at a time. The full profile
// runs them one at a time, so that what each one measures is its own.
func TestReliability(t *testing.T) {
	checkGoroutineLeaks(t)
	oneAtATime := currentProfile().oneAtATime
	resultsDir := os.Getenv(resultsDirEnv)
	for _, g := range scenarioGroups() {
		t.Run(g.name, func(t *testing.T) {
			results := make([]report.Scenario, len(g.scenarios))
			runScenario := func(i int, s scenario) {
				t.Run(s.name, func(t *testing.T) {
					m := &measurements{t: t}
					defer func() {
						results[i] = report.Scenario{Group: g.name, Name: s.name, Promise: s.promise, File: s.file, Measured: m.sentences(), Passed: !t.Failed()}
					}()
					s.run(t, m)
				})
			}
			if oneAtATime {
				for i, s := range g.scenarios {
					runScenario(i, s)
				}
			} else {
				var wg sync.WaitGroup
				for i, s := range g.scenarios {
					wg.Go(func() { runScenario(i, s) })
				}
				wg.Wait()
			}
			if resultsDir == "" {
				return
			}
			for _, r := range results {
				if r.Name == "" {
					// A -run pattern left scenarios out: the page shows whole runs only.
					t.Logf("not writing the %s results: not every scenario ran", g.name)
					return
				}
			}
			code, err := report.Fingerprint(filepath.Join("..", ".."))
			if err != nil {
				t.Fatalf("the code measured: %v", err)
			}
			run := report.Run{Group: g.name, Profile: currentProfile().name, GoVersion: runtime.Version(), Race: raceEnabled, Code: code, Scenarios: results}
			if err := report.Write(resultsDir, run); err != nil {
				t.Error(err)
			}
		})
	}
}

// group is a subtest of TestReliability: the serving side or the calling side.
type group struct {
	name      string
	scenarios []scenario
}

// scenario is a named subtest with the promise it checks, as docs/reliability.md states it.
type scenario struct {
	name, promise string
	// file is the test file that holds run.
	file string
	run  func(t *testing.T, m *measurements)
}

// scenarioGroups lists every scenario. The promises are what the page prints beside the
// measurements; the page is regenerated from them (make reliability).
func scenarioGroups() []group {
	return []group{
		{"serving", []scenario{
			{"certificate rotation under load", "Under load, the serving certificate is replaced halfway as a Secret volume does it (new timestamped directory, `..data` symlink swapped by rename). No request fails, and new TLS handshakes present the new certificate within 10 s.",
				"rotation_test.go", certificateRotationUnderLoad},
			{"SIGTERM drain", "`/readyz` fails before the listener closes; requests keep being served during the drain delay, none refused; every request in flight completes, even one whose body arrives after the listener closed, and so does a request sent after the close on a connection accepted before it (no accepted connection loses its request); a request unfinished when the grace period ends is cut off, admit serve then exits with code 1, and nothing is accepted after.",
				"shutdown_test.go", drainOnSIGTERM},
			{"panicking handler", "A handler that panics on every seventh request: those get 500 with a Status saying the handler panicked, the others their normal answer, the server stays up, and `admit_webhook_panics_total` counts exactly the panics.",
				"panic_test.go", panickingHandler},
			{"hostile clients", "Each of these gets a clear 4xx and a Status saying what is wrong: wrong method (405); missing, foreign or malformed media type (415); a body declared over the limit — refused before it is read — or streamed over it (413); an empty body, not JSON, a JSON array, arrays or objects nested 100,000 deep, an object of another kind than the webhook's, an object that is not an object, a number out of range, an unknown review version, a review without request or uid (400). Clients that never finish their headers are disconnected after the header timeout (10 s) while others are served. Nothing panics; peak memory stays bounded.",
				"hostile_clients_test.go", hostileClients},
			{"ambiguous JSON", "A review that decoders read differently — a duplicate key (in the review or in the object), bytes that are not UTF-8 — is refused with 400 naming the place, rather than read one way silently.",
				"hostile_clients_test.go", ambiguousJSON},
			{"TLS policy", "The minimum TLS version is enforced (default 1.2; `--tls-min-version 1.3`); with `--client-ca`, a client without a certificate signed by that CA is refused.",
				"tls_test.go", tlsPolicy},
			{"no private key in a caBundle", "`admit serve --print-config` and `admit certs inject`, the commands that write a caBundle, write the CA certificates and nothing else; a CA file holding a private key in any form — alone, after the certificate, with a damaged or missing END line — is refused (exit 2) and nothing is written. `certs create --ca-key-out` writes the CA key with mode 0600 and never prints it.",
				"tls_test.go", noPrivateKeyInCABundle},
			{"no secret in the logs", "At debug level, admit serve logs none of: object data, environment values, annotations, user extra, the Authorization header, the URL query, the content of reviews it refuses — nor any part of its private key.",
				"tls_test.go", noSecretsInLogs},
		}},
		{"calling", []scenario{
			{"hostile webhooks", "Webhooks that hang, reset the connection, answer garbage or HTML, redirect, answer 20 MiB, drip their answer, flood 2,000 warnings, send a 20 MiB patch, a copy bomb, or produce an invalid object — each in the mutating and the validating phase, with each failure policy. Calling errors follow the policy exactly (Fail: rejected with 500 naming the webhook; Ignore: admitted, `failed-open` outcome and audit annotation); a valid answer that cannot be applied is rejected with 500 whatever the policy, as kube-apiserver does; redirects are not followed; warnings stay within 4,096 runes; no goroutine outlives the run.",
				"hostile_webhooks_test.go", hostileWebhooks},
			{"request deadline", "A 500 ms request deadline ends a call to a webhook whose own timeout is 10 s: Admit returns at the request's deadline, the call is abandoned (nothing still hangs at the webhook), and the outcome follows the policy — a mutating webhook failing open past the deadline still ends the request with the apiserver's 504 timeout.",
				"hostile_webhooks_test.go", requestDeadline},
			{"concurrent admissions", "Different admissions through one dispatcher (six webhooks: patches, warnings, annotations, denials, a failing-open one, a failing one), one after the other and then all at once: every result identical (object, patch, warnings, annotations, status, each webhook's outcome), each webhook called as often, no data race.",
				"concurrency_test.go", concurrentAdmissionsMatchSerial},
			{"hostile extensions", "The same misbehaviours against extension.Call and CallAll: with Fail, an `CallingError` with the right reason (timeout, transport, decode, http_status, response_too_large); with Ignore, a bare Success; the caller's own deadline is reported even under Ignore; redirects are not followed; CallAll hears every extension and reports each calling error.",
				"hostile_extensions_test.go", hostileExtensions},
		}},
	}
}

// measurements collects what a scenario measured: each sentence goes to the test log and to the
// results the page is generated from.
type measurements struct {
	t  *testing.T
	mu sync.Mutex
	// said holds the sentences in the order they were logged.
	said []string
}

// Logf logs a measurement.
func (m *measurements) Logf(format string, args ...any) {
	m.t.Helper()
	sentence := fmt.Sprintf(format, args...)
	m.t.Log(sentence)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.said = append(m.said, sentence)
}

func (m *measurements) sentences() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.said...)
}

// subtest is a named case within a scenario.
type subtest struct {
	name string
	run  func(t *testing.T)
}

// runConcurrently runs the cases as subtests all at once and returns, when they are done, how
// many passed.
func runConcurrently(t *testing.T, cases ...subtest) int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for _, c := range cases {
		wg.Go(func() {
			if t.Run(c.name, c.run) {
				mu.Lock()
				passed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return passed
}

// The committed results (docs/reliability.md is generated from them) describe the scenarios as
// the code declares them: a scenario added, renamed or promising something else needs a new full
// run (make reliability).
func TestCommittedResultsDescribeEveryScenario(t *testing.T) {
	runs, err := report.Load("results")
	if err != nil {
		t.Fatal(err)
	}
	type declared struct{ Group, Name, Promise, File string }
	var inCode, inResults []declared
	for _, g := range scenarioGroups() {
		for _, s := range g.scenarios {
			inCode = append(inCode, declared{g.name, s.name, s.promise, s.file})
		}
	}
	for _, run := range runs {
		for _, s := range run.Scenarios {
			inResults = append(inResults, declared{s.Group, s.Name, s.Promise, s.File})
		}
	}
	sortDeclared := cmpopts.SortSlices(func(a, b declared) bool { return a.Group+a.Name < b.Group+b.Name })
	if diff := cmp.Diff(inCode, inResults, sortDeclared); diff != "" {
		t.Errorf("test/reliability/results is stale; run make reliability (-code +results):\n%s", diff)
	}
}
