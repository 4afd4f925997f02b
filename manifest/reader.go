package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Reader reads the objects of one file or stream, in order. Documents are read a batch at a
// time and decoded in parallel; a batch is dropped once its objects are read, so memory is
// bounded by the batch, whatever the stream's size.
type Reader struct {
	name  string
	split splitter
	// lines reads a YAML stream; nil for JSON.
	lines *lineReader
	queue []result
	done  bool
}

// A batch is this many pieces, or this much text, whichever comes first.
const (
	batchPieces = 256
	batchBytes  = 8 << 20
)

// NewReader reads r, named name in sources and errors (a path, "<stdin>"). The stream is YAML —
// several documents separated by "---" lines — or JSON, one or more values: a name ending in
// .json means JSON, .yaml or .yml YAML, and anything else is JSON when its first character is
// "{". A UTF-8 byte order mark is skipped. Lists (kind List, or any kind ending in List with
// items) are read as their items; a List's items that omit their kind and apiVersion get its
// own (a PodList's).
func NewReader(name string, r io.Reader) *Reader {
	return newReader(name, r, wholeLimit)
}

func newReader(name string, r io.Reader, limit int) *Reader {
	size := 64 << 10
	if b, ok := r.(interface{ Len() int }); ok {
		// In memory already: a buffer of its size, not more.
		size = max(min(size, b.Len()+1), 16)
	}
	br := bufio.NewReaderSize(r, size)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	rd := &Reader{name: name}
	if isJSON(name, br) {
		rd.split = &jsonSplitter{r: br, line: 1, limit: limit}
	} else {
		rd.lines = &lineReader{r: br}
		rd.split = &yamlSplitter{lines: rd.lines, limit: limit, docLine: 1}
	}
	return rd
}

// isJSON says whether a stream is JSON: by its name's extension, else by its first character.
func isJSON(name string, br *bufio.Reader) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	for n := 512; ; n *= 2 {
		head, err := br.Peek(n)
		if trimmed := bytes.TrimLeft(head, " \t\r\n"); len(trimmed) > 0 {
			return trimmed[0] == '{'
		}
		if err != nil || n >= br.Size() {
			return false
		}
	}
}

// Next returns the next object. Its error is about one part of the input — a document that does
// not decode, an object without a kind — and reading goes on after it, unless the input cannot
// be split further (a JSON syntax error, a line of over 64 MiB): then Next returns io.EOF after
// it. Errors start with the place, "file:line: ".
func (r *Reader) Next() (Object, error) {
	for len(r.queue) == 0 {
		if r.done {
			return Object{}, io.EOF
		}
		r.fill()
	}
	res := r.queue[0]
	r.queue = r.queue[1:]
	return res.object, res.err
}

// fill reads a batch of pieces and decodes them in parallel, in order into the queue.
func (r *Reader) fill() {
	var batch []piece
	size := 0
	var splitErr error
	for len(batch) < batchPieces && size < batchBytes {
		p, err := r.split.next()
		if err != nil {
			r.done = true
			if err != io.EOF {
				splitErr = r.located(err)
			}
			break
		}
		batch = append(batch, p)
		size += len(p.text)
	}
	decoded := make([][]result, len(batch))
	forEachParallel(len(batch), func(i int) { decoded[i] = decode(r.name, batch[i]) })
	for _, d := range decoded {
		r.queue = append(r.queue, d...)
	}
	if splitErr != nil {
		r.queue = append(r.queue, result{err: splitErr})
	}
}

// located places a splitting error in the file.
func (r *Reader) located(err error) error {
	source := Source{File: r.name}
	var at *lineError
	if errors.As(err, &at) {
		source.Line = at.line
	}
	return fmt.Errorf("%s: %w", source, err)
}

// TemplateHint is, once the stream is read, an error saying the input looks like a template
// ({{ ... }}) rather than a manifest, with what to do; nil when it does not. A caller adds it
// after the input's errors: a template's errors are those of its unrendered actions.
func (r *Reader) TemplateHint() error {
	if r.lines == nil || !r.lines.template.closed {
		return nil
	}
	return fmt.Errorf("%s: this looks like a template ({{ ... }}), not a manifest: render it first (helm template RELEASE CHART, or your templating tool) and read the output", r.name)
}

// Parse reads every object of data, named name in sources (see NewReader). Every problem is
// reported, each error starting with "file:line: "; on error no object is returned.
func Parse(name string, data []byte) ([]Object, error) {
	return readAll(NewReader(name, bytes.NewReader(data)))
}

// readAll reads every object of r; on error, none, and every problem.
func readAll(r *Reader) ([]Object, error) {
	var objects []Object
	if _, err := scanAll(r, func(o Object) { objects = append(objects, o) }); err != nil {
		return nil, err
	}
	return objects, nil
}

// scanAll calls fn with every object of r that reads, and returns every problem, the template
// hint last; n counts the objects.
func scanAll(r *Reader, fn func(Object)) (n int, err error) {
	var errs []error
	for {
		obj, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
		fn(obj)
	}
	if len(errs) > 0 {
		if hint := r.TemplateHint(); hint != nil {
			errs = append(errs, hint)
		}
		return n, errors.Join(errs...)
	}
	return n, nil
}

// forEachParallel calls f for 0 to n-1 on as many goroutines as the process may run at once,
// and returns when every call has.
func forEachParallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
