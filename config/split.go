package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
)

// document is one YAML document or JSON value of a file.
type document struct {
	text []byte
	// firstLine is the line of the file text starts at; line the first line with content.
	firstLine, line int
	json            bool
}

func isJSON(name string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// lineError is an error at a line of the file being split.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

// splitYAML splits data into documents at "---" lines (and "..." document end lines), keeping
// the documents that have content other than blank lines and comments.
func splitYAML(data []byte) ([]document, error) {
	var docs []document
	start, startLine := 0, 1
	flush := func(end int) {
		text := data[start:end]
		if line := firstContentLine(text); line > 0 {
			docs = append(docs, document{text: text, firstLine: startLine, line: startLine + line - 1})
		}
	}
	offset := 0
	for lineNumber := 1; offset < len(data); lineNumber++ {
		end := bytes.IndexByte(data[offset:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += offset + 1
		}
		line := data[offset:end]
		switch separator(line) {
		case separatorLine:
			flush(offset)
			start, startLine = end, lineNumber+1
		case separatorWithContent:
			return docs, &lineError{line: lineNumber, err: errors.New("content after a '---' document separator is not supported: put it on the next line")}
		}
		offset = end
	}
	flush(len(data))
	return docs, nil
}

type separatorKind int

const (
	notSeparator separatorKind = iota
	separatorLine
	separatorWithContent
)

// separator classifies a line: "---" or "..." alone (or followed by a comment) separates
// documents; "--- value" starts a document inline, which kubectl does not accept either.
func separator(line []byte) separatorKind {
	line = bytes.TrimRight(line, " \t\r\n")
	if bytes.Equal(line, []byte("...")) {
		return separatorLine
	}
	rest, found := bytes.CutPrefix(line, []byte("---"))
	if !found {
		return notSeparator
	}
	if len(rest) == 0 {
		return separatorLine
	}
	if rest[0] != ' ' && rest[0] != '\t' {
		return notSeparator // e.g. "----" or "---x": content, not a marker
	}
	if bytes.HasPrefix(bytes.TrimLeft(rest, " \t"), []byte("#")) {
		return separatorLine
	}
	return separatorWithContent
}

// firstContentLine returns the 1-based line of text that is not blank or a comment, 0 if none.
func firstContentLine(text []byte) int {
	for n := 1; len(text) > 0; n++ {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) > 0 && trimmed[0] != '#' {
			return n
		}
	}
	return 0
}

// splitJSON splits a stream of JSON values.
func splitJSON(data []byte) ([]document, error) {
	var docs []document
	lines := lineCounter{data: data}
	decoder := json.NewDecoder(bytes.NewReader(data))
	for {
		start := int(decoder.InputOffset())
		start += len(data[start:]) - len(bytes.TrimLeft(data[start:], " \t\r\n"))
		var raw json.RawMessage
		err := decoder.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			offset := start
			var syntaxErr *json.SyntaxError
			if errors.As(err, &syntaxErr) {
				offset = int(syntaxErr.Offset)
			}
			return docs, &lineError{line: lines.at(offset), err: err}
		}
		line := lines.at(start)
		docs = append(docs, document{text: raw, firstLine: line, line: line, json: true})
	}
}

// lineCounter turns increasing byte offsets into line numbers without rescanning.
type lineCounter struct {
	data         []byte
	offset, line int
}

func (c *lineCounter) at(offset int) int {
	offset = min(max(offset, 0), len(c.data))
	if c.line == 0 || offset < c.offset {
		c.offset, c.line = 0, 1
	}
	c.line += bytes.Count(c.data[c.offset:offset], []byte("\n"))
	c.offset = offset
	return c.line
}
