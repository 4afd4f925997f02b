// Package markdowntest renders Markdown as GitHub renders a comment, for tests that check that
// admit's -o markdown renders as intended rather than reading it by eye. Only tests import it:
// the renderer stays out of the binary.
//
//	render.go  Render: GitHub-flavoured Markdown to HTML, raw HTML kept
package markdowntest
