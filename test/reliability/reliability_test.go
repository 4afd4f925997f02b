package reliability

import (
	"sync"
	"testing"
)

// TestReliability runs every scenario, then checks that none left a goroutine behind. The short
// profile runs them all at once: they mostly wait — on a fixed request rate, drain delays,
// timeouts, slow clients — so they share the machine well; they are subtests started together
// rather than parallel tests, which go test would run only GOMAXPROCS at a time. The full profile
// runs them one at a time, so that what each one measures is its own.
func TestReliability(t *testing.T) {
	checkGoroutineLeaks(t)
	run := runConcurrently
	if currentProfile().oneAtATime {
		run = runOneAtATime
	}
	run(t,
		scenario{"serving", func(t *testing.T) {
			run(t,
				scenario{"certificate rotation under load", certificateRotationUnderLoad},
				scenario{"SIGTERM drain", drainOnSIGTERM},
				scenario{"panicking handler", panickingHandler},
				scenario{"hostile clients", hostileClients},
				scenario{"ambiguous JSON", ambiguousJSON},
				scenario{"TLS policy", tlsPolicy},
				scenario{"no private key in a caBundle", noPrivateKeyInCABundle},
				scenario{"no secret in the logs", noSecretsInLogs},
			)
		}},
		scenario{"calling", func(t *testing.T) {
			run(t,
				scenario{"hostile webhooks", hostileWebhooks},
				scenario{"request deadline", requestDeadline},
				scenario{"concurrent admissions", concurrentAdmissionsMatchSerial},
				scenario{"hostile extensions", hostileExtensions},
			)
		}},
	)
}

// scenario is a named subtest.
type scenario struct {
	name string
	run  func(t *testing.T)
}

// runConcurrently runs the scenarios as subtests all at once and returns when they are done.
func runConcurrently(t *testing.T, scenarios ...scenario) {
	t.Helper()
	var wg sync.WaitGroup
	for _, s := range scenarios {
		wg.Go(func() { t.Run(s.name, s.run) })
	}
	wg.Wait()
}

// runOneAtATime runs the scenarios as subtests, one after the other.
func runOneAtATime(t *testing.T, scenarios ...scenario) {
	t.Helper()
	for _, s := range scenarios {
		t.Run(s.name, s.run)
	}
}
