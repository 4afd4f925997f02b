// Command reliabilityreport rewrites the generated tables of docs/reliability.md from the
// results a reliability run wrote (make reliability runs it).
//
//	main.go  the flags, and report.UpdateFile on the page
package main
