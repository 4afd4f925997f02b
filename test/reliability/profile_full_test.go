//go:build reliability

package reliability

import "time"

// currentProfile is the full profile `make reliability` runs: the load and durations the
// promises are stated for, and admit serve's own drain delay.
func currentProfile() profile {
	return profile{
		name:                 "full",
		rate:                 1000,
		loadDuration:         60 * time.Second,
		connections:          16,
		requestsPerConn:      200,
		panicDuration:        20 * time.Second,
		drainRate:            200,
		drainDelay:           5 * time.Second,
		gracePeriod:          10 * time.Second,
		inFlight:             32,
		slowClients:          64,
		concurrentHostile:    16,
		concurrentAdmissions: 1000,
		oneAtATime:           true,
	}
}
