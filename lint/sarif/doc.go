// Package sarif writes lint findings as a SARIF 2.1.0 log (OASIS Static Analysis Results
// Interchange Format), the format code-scanning services ingest. Only the small part of the
// format lint needs is modelled: one run, its tool with the rule catalogue, and results with a
// level, a message, the file and line of the configuration, a logical location naming the
// configuration and field, and suppressions.
//
//	sarif.go  Log and the parts of SARIF lint writes; Level, FromFindings
package sarif
