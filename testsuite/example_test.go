package testsuite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/admitkit/admit/testsuite"
)

// Run a test file — admission policies and the cases that hold them — and read its report.
func Example() {
	report := testsuite.RunFile(context.Background(), "../examples/policies/admit-test.yaml", testsuite.Options{})
	passed, failed, errors := report.Counts()
	fmt.Printf("%s: %d passed, %d failed, %d could not run\n", report.Name, passed, failed, errors)
	defer report.Close()
	cases, err := report.Cases()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cases[:2] {
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

// What a file's cases exercised of its policies: Options.Coverage, then the report's Coverage.
func ExampleCoverage_WriteText() {
	report := testsuite.RunFile(context.Background(), "../examples/policies/admit-test.yaml", testsuite.Options{Coverage: true})
	coverage := testsuite.MergeCoverage(report.Coverage) // the totals of several files' runs
	if err := coverage.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// coverage: 6 of 7 units (85.7%)
	//   ITEM                                KIND                              UNITS  CASES
	//   default-tier                        MutatingAdmissionPolicy           2/3    "a Deployment within its tier's limit gets the default tier", "a Deployment over its tier's limit is refused"
	//     not matchCondition no-tier false
	//   default-tier (of default-tier)      MutatingAdmissionPolicyBinding    1/1    "a Deployment within its tier's limit gets the default tier", "a Deployment over its tier's limit is refused"
	//   replica-limit                       ValidatingAdmissionPolicy         2/2    "a Deployment within its tier's limit gets the default tier", "a Deployment over its tier's limit is refused", "an UPDATE that scales past the limit is refused too"
	//   replica-limit (of replica-limit)    ValidatingAdmissionPolicyBinding  1/1    "a Deployment within its tier's limit gets the default tier", "a Deployment over its tier's limit is refused", "an UPDATE that scales past the limit is refused too"
}

// Every test file under a directory, run and reported as `admit test` reports them; a filter
// that selects no case is an error, so that a pattern with a typo does not pass.
func ExampleRunFiles() {
	files, err := testsuite.Find("../examples/policies")
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := testsuite.RunFiles(context.Background(), files, testsuite.Options{Filter: regexp.MustCompile("refused")})
	defer results.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(files)
	fmt.Printf("%d passed, %d failed, %d could not run\n", results.Passed, results.Failed, results.Errors)

	again, err := testsuite.RunFiles(context.Background(), files, testsuite.Options{Filter: regexp.MustCompile("no such case")})
	defer again.Close()
	var none *testsuite.NoCaseSelectedError
	fmt.Println(errors.As(err, &none))
	// Output:
	// [../examples/policies/admit-test.yaml]
	// 2 passed, 0 failed, 0 could not run
	// true
}

// A file's case reports, read one at a time as they were decided: a file of many cases keeps
// them in a temporary file, which Close removes.
func ExampleReport_EachCase() {
	report := testsuite.RunFile(context.Background(), "../examples/policies/admit-test.yaml", testsuite.Options{})
	defer report.Close()
	err := report.EachCase(func(c *testsuite.CaseReport) error {
		fmt.Printf("line %d: passed %v, called %v\n", c.Line, c.Passed, c.Called)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// line 10: passed true, called [default-tier replica-limit]
	// line 16: passed true, called [default-tier replica-limit]
	// line 23: passed true, called [replica-limit]
}

// The results as `admit test -o yaml` prints them, written a case at a time.
func ExampleWriteStructured() {
	files := []string{"../examples/policies/admit-test.yaml"}
	results, err := testsuite.RunFiles(context.Background(), files, testsuite.Options{Filter: regexp.MustCompile("within")})
	defer results.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	var out strings.Builder
	if err := testsuite.WriteStructured(&out, "yaml", results); err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.Contains(line, "durationSeconds") { // how long it took differs from run to run
			fmt.Println(line)
		}
	}
	// Output:
	// errors: 0
	// failed: 0
	// passed: 1
	// suites:
	// - cases:
	//   - allowed: true
	//     called:
	//     - default-tier
	//     - replica-limit
	//     line: 10
	//     name: a Deployment within its tier's limit gets the default tier
	//     passed: true
	//     webhooks:
	//     - binding: default-tier
	//       name: default-tier
	//       outcome: patched
	//       type: mutating-policy
	//     - binding: replica-limit
	//       name: replica-limit
	//       outcome: allowed
	//       type: validating-policy
	//   file: ../examples/policies/admit-test.yaml
	//   name: replica limits per tier
}
