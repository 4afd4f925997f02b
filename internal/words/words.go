package words

import (
	"fmt"
	"strings"
)

// Plural is "1 write" or "2 writes": n with the noun in the number it takes.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// OneLine keeps the first line of a message, with "…" when there was more: for a table cell, a
// summary line.
func OneLine(s string) string {
	first, _, cut := strings.Cut(s, "\n")
	if cut {
		return first + " …"
	}
	return first
}

// List joins items as a sentence does: "a", "a or b", "a, b or c" with conjunction "or".
func List(items []string, conjunction string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conjunction + " " + items[len(items)-1]
}
