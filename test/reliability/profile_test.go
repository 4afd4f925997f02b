package reliability

import "time"

// profile sizes the scenarios; profile_short_test.go and profile_full_test.go each define
// currentProfile for one build tag.
type profile struct {
	name string
	// rate requests per second for loadDuration, over connections connections, each closed after
	// requestsPerConn requests so TLS handshakes keep happening during a rotation.
	rate            int
	loadDuration    time.Duration
	connections     int
	requestsPerConn int
	// panicDuration is how long the panicking handler is loaded at rate.
	panicDuration time.Duration
	// drainDelay and gracePeriod are given to admit serve in the SIGTERM scenario, loaded at
	// drainRate requests per second (a new connection each) with inFlight requests held open
	// across the shutdown.
	drainRate               int
	drainDelay, gracePeriod time.Duration
	inFlight                int
	// slowClients connections trickle their headers (slowloris); concurrentHostile copies of each
	// oversized or pathological request are sent at once.
	slowClients       int
	concurrentHostile int
	// concurrentAdmissions go through one dispatcher at once.
	concurrentAdmissions int
	// oneAtATime runs the scenarios one after the other rather than all at once.
	oneAtATime bool
}
