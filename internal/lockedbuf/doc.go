// Package lockedbuf is a bytes.Buffer that goroutines write while a test reads it: a child
// process's output (exec copies it from a goroutine of its own) or a server's concurrent log
// records.
//
//	buffer.go  Buffer: a bytes.Buffer behind a mutex
package lockedbuf
