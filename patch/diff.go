package patch

import "bytes"

// Diff returns a minimal patch that turns original into modified (both JSON
// documents). Equal values are left alone even when written differently
// (1 and 1.0, "a" and "\u0061", other whitespace or member order), so the
// patch only carries real changes. The result is empty, never nil, when
// nothing changed. A change of the root value itself (another type, or
// another scalar) is one replace at the empty path "". Invalid JSON in
// either argument yields a *SyntaxError naming the argument and the offset.
func Diff(original, modified []byte) (Patch, error) {
	if bytes.Equal(original, modified) {
		if _, err := validate("original", original); err != nil {
			return nil, err
		}
		return Patch{}, nil
	}
	before, err := parse("original", original)
	if err != nil {
		return nil, err
	}
	after, err := parse("modified", modified)
	if err != nil {
		return nil, err
	}
	return diffDocuments(before, after), nil
}

func diffDocuments(before, after *document) Patch {
	// Diffing a document against itself as "raw" is the lossless diff with
	// nothing unknown and nothing lost in a round trip.
	d := differ{before: before, after: after, raw: before}
	d.value(0, 0, 0)
	return d.finish()
}

// Lossless returns the changes between before and after — two serialisations
// of the same typed object, before and after user code mutated it — as a
// patch that applies to raw, the document actually received.
//
// Fields present in raw but unknown to the type (absent from before and
// after) are never removed. Round-trip artefacts (in before and after but
// not in raw, such as "status":{} or "creationTimestamp":null) never appear
// unless the user changed them; when a change lands inside an object that
// raw lacks, that object is created holding only the changed members. The
// patch is empty, never nil, when before and after are equal.
//
// Array elements are matched by position after their common prefix and
// suffix, so raw must hold the same number of elements as before in every
// array that changed; where it does not, after's whole array replaces raw's.
// Invalid JSON in any argument yields a *SyntaxError naming the argument.
func Lossless(raw, before, after []byte) (Patch, error) {
	if bytes.Equal(before, after) {
		if _, err := validate("raw", raw); err != nil {
			return nil, err
		}
		if _, err := validate("before", before); err != nil {
			return nil, err
		}
		return Patch{}, nil
	}
	rawDoc, err := parse("raw", raw)
	if err != nil {
		return nil, err
	}
	beforeDoc := rawDoc
	if !bytes.Equal(raw, before) {
		if beforeDoc, err = parse("before", before); err != nil {
			return nil, err
		}
	}
	afterDoc, err := parse("after", after)
	if err != nil {
		return nil, err
	}
	d := differ{before: beforeDoc, after: afterDoc, raw: rawDoc}
	d.value(0, 0, 0)
	return d.finish(), nil
}
