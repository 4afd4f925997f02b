// Package layout holds the tests that keep admit's layout true: which packages may import which
// (layering_test.go), that every package's doc.go maps its files (docmap_test.go), and that no
// file or function grows past what a reader follows (style_test.go). It has no code of its own.
package layout
