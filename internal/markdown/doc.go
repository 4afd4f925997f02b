// Package markdown writes admit's -o markdown: GitHub-flavoured Markdown for a pull request's
// comment or a CI job's summary, where the reader sees a summary line first, a table of what
// failed, the worst first, and the details folded. What it writes is bounded — a comment has a
// size limit, and a reader stops after a screen — so tables end with "and N more" past a limit.
// Text from the input (a message, a file name) is escaped so that it renders as itself: a "|"
// does not split a cell, a "<" opens no tag, a line break does not end the row.
//
//	markdown.go  Cell, Text, Code, HTML, Table, Details: the pieces, escaped and bounded
package markdown
