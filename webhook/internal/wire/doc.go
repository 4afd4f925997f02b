// Package wire holds what the admission and conversion HTTP adapters share: checking a request
// before its body is read, reading the body within a limit, and writing JSON replies and
// metav1.Status errors.
//
//	wire.go  ReadBody: a request checked and its body read within a limit; Status and JSON replies
package wire
