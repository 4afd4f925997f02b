package markdowntest

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// Render renders md as GitHub renders a comment — GitHub-flavoured Markdown (tables,
// strikethrough, autolinks), raw HTML such as <details> kept — and returns the HTML.
func Render(tb testing.TB, md string) string {
	tb.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := gm.Convert([]byte(md), &out); err != nil {
		tb.Fatal(err)
	}
	return out.String()
}
