package review

import (
	"fmt"
	"io"

	"github.com/admitkit/admit/internal/structured"
)

// ListWriter writes a List (see List) an entry at a time, as JSON or YAML, with the bytes of the
// whole List encoded at once: the reviews of an input too large to hold, each written as it is
// decided. Close ends the List.
type ListWriter struct {
	w      io.Writer
	format string
	n      int
	closed bool
}

// NewListWriter writes a List to w in format, "json" or "yaml".
func NewListWriter(w io.Writer, format string) (*ListWriter, error) {
	if format != structured.JSON && format != structured.YAML {
		return nil, fmt.Errorf("review: a List is written as json or yaml, not %q", format)
	}
	return &ListWriter{w: w, format: format}, nil
}

// Write writes the outcome's entry.
func (lw *ListWriter) Write(o *Outcome) error {
	if lw.closed {
		return fmt.Errorf("review: the List is closed")
	}
	entry := entryOf(o)
	var head string
	var item []byte
	var err error
	if lw.format == structured.JSON {
		head = ",\n    "
		if lw.n == 0 {
			head = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n    "
		}
		item, err = structured.JSONItem(entry)
	} else {
		if lw.n == 0 {
			// YAML's keys are sorted: the items come between apiVersion and kind.
			head = "apiVersion: v1\nitems:\n"
		}
		item, err = structured.YAMLItem(entry)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", o.Source, err)
	}
	lw.n++
	if _, err := io.WriteString(lw.w, head); err != nil {
		return err
	}
	_, err = lw.w.Write(item)
	return err
}

// Close ends the List; a List of no entry is an empty one.
func (lw *ListWriter) Close() error {
	if lw.closed {
		return nil
	}
	lw.closed = true
	var tail string
	switch {
	case lw.format == structured.JSON && lw.n == 0:
		tail = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": []\n}\n"
	case lw.format == structured.JSON:
		tail = "\n  ]\n}\n"
	case lw.n == 0:
		tail = "apiVersion: v1\nitems: []\nkind: List\n"
	default:
		tail = "kind: List\n"
	}
	_, err := io.WriteString(lw.w, tail)
	return err
}
