package reliability

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Build admit in the background while the tests start: the serving scenarios wait for it.
	// Listing tests (go test -list) runs TestMain too, and needs no binary.
	if flag.Lookup("test.list").Value.String() == "" && needsAdmit(flag.Lookup("test.run").Value.String()) {
		go admitCommand.build()
	}
	code := m.Run()
	admitCommand.remove()
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
