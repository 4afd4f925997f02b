// Package junit writes test results as JUnit XML, the report format CI systems (GitLab, Jenkins,
// GitHub Actions' test reporters, Buildkite) read to show failed cases.
//
//	junit.go  Suite, Case, Write: test results as one <testsuites> document; Stream and Totals
//	          write it a case at a time
package junit
