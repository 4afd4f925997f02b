// Package jsonfields finds the members of a Go struct's JSON object as encoding/json does (and
// sigs.k8s.io/json, which keeps its rules): which fields, under which names, through which
// embedded structs. patch.Typed walks values by these members to compute patches without
// encoding, and the webhook's one-pass decoder decodes into them; both must agree with
// encoding/json member for member, so they share one reading of the rules.
//
//	fields.go  Of, Field: a struct type's JSON members, found by encoding/json's rules
package jsonfields
