// Package jsonstring decodes the escape sequences of JSON strings as encoding/json does, for the
// packages that read JSON text themselves: internal/typedjson's one-pass decoder, which
// validates as it decodes, and package patch, which compares keys and strings of text it has
// validated. One reading of the escapes keeps the two from disagreeing with each other and with
// the decoders they stand in for.
//
//	escape.go  AppendEscape: one escape sequence of a JSON string decoded, surrogate pairs included
package jsonstring
