// Package patch generates RFC 6902 JSON Patches, the answer a mutating
// admission webhook sends back to the API server, and applies them the way
// the API server does.
//
// # Diff
//
// Diff(original, modified) returns a small patch between two JSON
// documents. Values are compared by meaning, not spelling: 1, 1.0 and 1e0
// are the same number (compared as exact decimals, never through float64,
// so distinct int64 values above 2^53 stay distinct); "a" and "\u0061" are
// the same string; member order and whitespace do not matter; of duplicate
// keys the last one counts, as in encoding/json. An unchanged number is
// never rewritten, and a value that did change is copied with its exact
// text from modified.
//
// Objects are diffed member by member and the operations come out in
// sorted key order, so the same inputs always give the same patch. Arrays
// are diffed in linear time: the common prefix and suffix are skipped, the
// elements left in the middle are paired by position and diffed
// recursively, surplus elements are removed from the highest index down
// and new ones are added at explicit indices in increasing order (never
// "/-", so every operation names the element it creates). This is not a
// longest-common-subsequence diff: inserting one element in the middle of
// an array that also changed elsewhere can give one operation per shifted
// element, but never quadratic time.
//
// # Lossless
//
// A typed webhook decodes the request object into a Go type, lets user
// code change it and serialises it again. Diffing the received document
// against that serialisation, as most frameworks do, is lossy twice over:
// fields the Go type does not know (a newer API server, a feature gate)
// are removed, and fields the type always writes ("status":{},
// "resources":{}) are added though nobody set them.
//
// Lossless(raw, before, after) separates the two questions. What did the
// user change? The difference between before and after, two serialisations
// of the same type that share every artefact of the round trip. Where does
// that change go? Into raw, the document the API server sent, looked up at
// the paths where before and after differ, and nowhere else. So:
//
//   - members of raw absent from before and after are never touched, unless
//     the user removes or replaces the object or array that holds them;
//   - members in before and after but not in raw are round-trip artefacts
//     and stay out of the patch, unless the user changed them; when a change
//     lands inside an object raw lacks, that object is added holding only
//     the changed members;
//   - an unchanged value in raw keeps its exact bytes (number spelling,
//     escapes, member order).
//
// Array elements are matched by position, as in Diff. That needs raw to
// hold as many elements as before in each changed array, which a typed
// round trip guarantees; where it does not, after's whole array replaces
// raw's.
//
// # Typed
//
// A Typed computes the patch Lossless makes of two values' encodings without encoding them: it
// walks before and after as encoding/json sees them (member names, omitempty and omitzero, nil
// as null), skips what is equal without encoding it, looks raw up only where something changed,
// and encodes only the values its operations carry. Values with their own MarshalJSON, and
// shapes it does not follow, are encoded on both sides and diffed as text from there.
// FuzzTypedLossless holds it to Lossless, operation for operation.
//
// # Apply
//
// Apply(doc, p) applies a patch with kube-apiserver's path semantics
// (gopkg.in/evanphx/json-patch.v4, including its departures from RFC 6902:
// negative array indices, replace adding a missing member). Only the
// containers an operation goes into are expanded; everything else is copied
// out byte for byte, so patching a large object costs little more than
// copying it. ApplyChanged also says whether the result differs from doc by
// value, looking only where the patch went.
//
// # Speed
//
// Both functions parse each document once into a flat list of tokens that
// keeps every value's byte range, validating as they go (RFC 8259, UTF-8
// only, nesting up to 10000 levels) and reporting a *SyntaxError with the
// argument's name and the offset. The diff compares subtrees by their bytes
// before looking inside, so unchanged parts of an object cost one memory
// comparison; when before and after are byte-identical no structure is
// built at all. A Document is a text parsed once for several of these uses:
// kube-apiserver's chain, as admit's engine runs it, validates the submitted
// object, applies a webhook's patch to it and diffs the admitted object
// against it, one parse for all three. See docs/benchmarks.md.
//
// # Files
//
//	patch.go       Patch, Operation: the operations and their JSON, read as kube-apiserver does
//	diff.go        Diff, Lossless: the documents parsed, then walked by differ.go
//	differ.go      the walk of two parsed documents that writes the operations, objects in key
//	               order, arrays in linear time
//	typed.go       Typed: encoding/json's view of a Go type, planned once per type
//	typed_diff.go  the walk of two Go values that writes the same operations as differ.go
//	apply.go       Apply, ApplyChanged, ApplyError: only the containers a patch goes into expanded
//	pointer.go     JSON Pointers resolved as Apply reads them; PointerTokens
//	document.go    Document, Parse: a text parsed once for several uses
//	parse.go       the validating parser into a flat list of tokens; SyntaxError, Valid
//	number.go      numbers compared as exact decimals
//	text.go        strings unquoted and compared, pointer tokens escaped, values quoted or compacted
package patch
