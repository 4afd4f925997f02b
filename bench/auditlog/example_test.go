package auditlog_test

import (
	"fmt"
	"io"

	"github.com/admitkit/admit/bench/auditlog"
)

// A log of 20,000 writes, of the default cluster, with reads about twice as many.
func ExampleGenerate() {
	stats, err := auditlog.Generate(io.Discard, auditlog.Config{Writes: 20000})
	if err != nil {
		panic(err)
	}
	fmt.Println(stats.Writes, stats.Reads > 38000 && stats.Reads < 42000, stats.Objects > 6000)
	// Output: 20000 true true
}
