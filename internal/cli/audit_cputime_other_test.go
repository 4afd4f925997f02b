//go:build !unix

package cli

import "time"

// cpuTime is not measured where getrusage is missing: the benchmark reports 0.
func cpuTime() time.Duration { return 0 }
