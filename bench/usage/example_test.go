package usage_test

import (
	"fmt"
	"time"

	"github.com/admitkit/admit/bench/usage"
)

// Consumption per operation is the difference of two samples divided by the operations between
// them.
func ExampleDelta_Per() {
	before := usage.Sample{CPU: 40 * time.Millisecond, Mallocs: 1_000}
	after := usage.Sample{CPU: 100 * time.Millisecond, Mallocs: 301_000}
	per := after.Sub(before).Per(1_000)
	fmt.Println(per.CPU, per.Allocs)
	// Output: 60µs 300
}

// A process samples itself; a server under test serves the same through usage.Handler.
func ExampleSelf() {
	s, err := usage.Self()
	if err != nil {
		panic(err)
	}
	fmt.Println(s.CPU > 0, s.PeakRSS > 0)
	// Output: true true
}
