// Package cli builds the admit command tree. Commands are thin: they parse flags, call the
// library packages and print results; exit codes follow the outcome (see ExitCode constants).
package cli
