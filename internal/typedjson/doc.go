// Package typedjson decodes the objects of admission requests, and webhooks' answers, into Go types
// in one pass.
//
// The webhook package decodes with sigs.k8s.io/json (case-sensitive names, duplicate names
// refused), which is encoding/json's decoder: it scans the whole input once to validate it, then
// again to decode it, looking every value up through reflection as it goes. Decoding the object
// was about half of a typed webhook's CPU. A Decoder plans each type once — its members by name
// (internal/jsonfields), which of its types have their own UnmarshalJSON — and decodes while it
// validates.
//
// A Decoder decides only what it is sure of. It reports false for anything it does not
// reproduce exactly: every error (the caller decodes again with sigs.k8s.io/json, which gives the
// error its exact text), and inputs or types outside the common shape (escapes in keys, invalid
// UTF-8, interface fields, ",string" options, encoding.TextUnmarshaler types, non-string map
// keys). When it reports true, the value is what sigs.k8s.io/json would have decoded.
//
//	decode.go  Decoder.Decode: values, objects, maps and arrays decoded into what their plan says
//	plan.go    a type's plan, made once: its kind, its members (internal/jsonfields), its unmarshalers
//	scan.go    the JSON text: whitespace, strings and their escapes, numbers, literals, skipped values
package typedjson
