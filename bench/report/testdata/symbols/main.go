// Command symbols is a small program of the bench module that TestReadSymbols links without
// stripping it: go test strips its own binaries, so the test binary has no symbols to read. The
// main package's symbols are main's; report's are the module's.
package main

import (
	"fmt"

	"github.com/admitkit/admit/bench/report"
)

func main() {
	fmt.Println(report.TopModules(map[string]int64{"Go": 1}, 1))
}
