//go:build !reliability

package reliability

import "time"

// currentProfile is the short profile `go test ./...` runs: every scenario, scaled down to a
// few seconds on a shared machine, asserting correctness only.
func currentProfile() profile {
	return profile{
		name:                 "short",
		rate:                 200,
		loadDuration:         5 * time.Second,
		connections:          8,
		requestsPerConn:      50,
		panicDuration:        2 * time.Second,
		drainRate:            100,
		drainDelay:           time.Second,
		gracePeriod:          5 * time.Second,
		inFlight:             4,
		slowClients:          8,
		concurrentHostile:    4,
		concurrentAdmissions: 1000,
		oneAtATime:           false,
	}
}
