package testsuite

import "testing"

// casesOf are a report's case reports, read back whole; the report is closed when the test ends.
func casesOf(t *testing.T, r *Report) []*CaseReport {
	t.Helper()
	t.Cleanup(func() { r.Close() })
	cases, err := r.Cases()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// withCoverage is r with coverage c.
func withCoverage(r *Report, c *Coverage) *Report {
	r.Coverage = c
	return r
}
