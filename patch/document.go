package patch

import "bytes"

// Document is a JSON document parsed once for several uses: a program that validates an
// object, applies a patch to it and diffs the result against it parses it once instead of
// three times. A Document is read-only and safe for concurrent use; data must not change while
// it is in use.
type Document struct {
	doc *document
}

// Parse validates data as one JSON value (RFC 8259, UTF-8 only) and keeps its structure. An
// invalid document gives a *SyntaxError naming it "document".
func Parse(data []byte) (*Document, error) {
	d, err := parse("document", data)
	if err != nil {
		return nil, err
	}
	return &Document{doc: d}, nil
}

// Bytes returns the document's text, as given to Parse.
func (d *Document) Bytes() []byte { return d.doc.data }

// ApplyChanged is ApplyChanged on the document.
func (d *Document) ApplyChanged(p Patch) (patched []byte, changed bool, err error) {
	return applyChanged(d.doc, p)
}

// Diff is Diff from the document to modified.
func (d *Document) Diff(modified []byte) (Patch, error) {
	if bytes.Equal(d.doc.data, modified) {
		return Patch{}, nil
	}
	after, err := parse("modified", modified)
	if err != nil {
		return nil, err
	}
	return diffDocuments(d.doc, after), nil
}
