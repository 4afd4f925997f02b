package testsuite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/admitkit/admit/testsuite"
)

// Run a test file — admission policies and the cases that hold them — and read its report.
func Example() {
	report := testsuite.RunFile(context.Background(), "../examples/policies/admit-test.yaml", testsuite.Options{})
	passed, failed, errors := report.Counts()
	fmt.Printf("%s: %d passed, %d failed, %d could not run\n", report.Name, passed, failed, errors)
	for _, c := range report.Cases[:2] {
		fmt.Println(c.Passed, c.Name)
	}
	// Output:
	// replica limits per tier: 3 passed, 0 failed, 0 could not run
	// true a Deployment within its tier's limit gets the default tier
	// true a Deployment over its tier's limit is refused
}

// A repository's test files under go test: each case a subtest.
func TestExamplePolicies(t *testing.T) {
	testsuite.RunT(t, "../examples/policies/admit-test.yaml")
}
