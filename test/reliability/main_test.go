package reliability

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/admitkit/admit/internal/testbin"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// The serving scenarios run admit as a process with deadlines of their own: have the binary
	// before any of them starts (a cold build takes minutes). Listing tests (go test -list) runs
	// TestMain too, and needs no binary.
	var admit *testbin.Binary
	if flag.Lookup("test.list").Value.String() == "" && needsAdmit(flag.Lookup("test.run").Value.String()) {
		var err error
		if admit, err = testbin.Admit().Build(); err != nil {
			fmt.Fprintln(os.Stderr, "reliability:", err)
			os.Exit(1)
		}
		admitPath = admit.Path
	}
	code := m.Run()
	if err := admit.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "reliability: removing the admit binary:", err)
	}
	os.Exit(code)
}

// needsAdmit reports whether a -run pattern selects TestReliability, whose serving scenarios run
// the admit binary.
func needsAdmit(run string) bool {
	if run == "" {
		return true
	}
	// Like go test, match the part before the first slash against top-level test names.
	re, err := regexp.Compile(strings.Split(run, "/")[0])
	return err == nil && re.MatchString("TestReliability")
}
