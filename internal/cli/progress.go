package cli

import (
	"fmt"
	"io"
	"time"
)

// progressDelay is how long a run goes before it shows progress: a short run prints none.
const progressDelay = 2 * time.Second

// progressLine rewrites one line on the terminal w with line(elapsed) five times a second, once
// the run has taken progressDelay; stop erases it, and returns once nothing more is written.
func progressLine(w io.Writer, line func(elapsed time.Duration) string) (stop func()) {
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-quit:
				if shown {
					fmt.Fprint(w, "\r\x1b[K")
				}
				return
			case <-tick.C:
				if elapsed := time.Since(start); elapsed >= progressDelay {
					shown = true
					fmt.Fprint(w, "\r\x1b[K"+line(elapsed))
				}
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}
