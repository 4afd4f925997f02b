// Package report renders the results of the reliability scenarios (test/reliability) into the
// tables of docs/reliability.md, so that the page says what the last full run measured and
// cannot drift from it: the scenarios write their results as JSON, this package turns them into
// the page's generated sections, and a test checks that the committed page and results agree,
// and that the results measured the code as it is (a change to it since makes them stale).
//
//	report.go  Run, Write, Load: the results files; Table, UpdatePage, UpdateFile: the page
//	code.go    MeasuredCode, Fingerprint: the code a run measured; StalePlaces: what changed since
package report
