package audit

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/internal/jsonscan"
)

// An audit log as it lies on disk: one file, or a directory of one log's files as rotation left
// them (audit.log, audit.log.1.gz, ... or audit-2026-11-20T10-00-00.000.log.gz, ...), gzipped or
// not. It is read a line at a time, in bounded memory whatever its size: every line's head
// first (eventHead), the whole event only when the reader asks.

// logFiles are the files of the log at path, the oldest first. A directory's files are ordered
// by the time of their first event, whatever the rotation's naming; files whose events have no
// time by logrotate's numbering (audit.log.2.gz before audit.log.1 before audit.log); files
// without events last.
func logFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	type file struct {
		path  string
		first time.Time
	}
	var files []file
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(path, e.Name())
		first, err := firstEventTime(p)
		if err != nil {
			return nil, err
		}
		files = append(files, file{p, first})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: a directory with no file of an audit log", path)
	}
	slices.SortFunc(files, func(a, b file) int {
		switch {
		case a.first.IsZero() != b.first.IsZero():
			return boolRank(a.first.IsZero()) - boolRank(b.first.IsZero())
		case !a.first.Equal(b.first):
			return a.first.Compare(b.first)
		}
		return cmp.Or(cmp.Compare(rotation(b.path), rotation(a.path)), strings.Compare(a.path, b.path))
	})
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out, nil
}

// rotation is the number logrotate gives a rotated file (audit.log.3, audit.log.3.gz): the
// higher, the older; -1 for a name without one, the live file.
func rotation(path string) int {
	name := strings.TrimSuffix(filepath.Base(path), ".gz")
	dot := strings.LastIndexByte(name, '.')
	if n, err := strconv.Atoi(name[dot+1:]); dot >= 0 && err == nil && n >= 0 {
		return n
	}
	return -1
}

// firstEventTime is when a file's first event was logged; zero for a file without events.
func firstEventTime(path string) (time.Time, error) {
	var first time.Time
	err := readLines([]string{path}, func(l *logLine) error {
		var head struct {
			StageTimestamp time.Time `json:"stageTimestamp"`
		}
		if err := json.Unmarshal(l.data, &head); err != nil {
			return l.notAnEvent(err)
		}
		first = head.StageTimestamp
		return errStop
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return first, err
}

var errStop = errors.New("stop")

// logLine is one non-empty line of a log's files.
type logLine struct {
	file string
	line int
	// position counts the log's events before this one, across its files.
	position int64
	// data is the line, valid until the next.
	data []byte
}

func (l *logLine) String() string { return fmt.Sprintf("%s:%d", l.file, l.line) }

func (l *logLine) notAnEvent(err error) error {
	return fmt.Errorf("%s: not an audit event (JSON lines of audit.k8s.io/v1 Events, as --audit-log-path writes them): %w", l, err)
}

// readLines calls fn with every non-empty line of files, in order.
func readLines(files []string, fn func(*logLine) error) error {
	var position int64
	for _, path := range files {
		if err := readFileLines(path, &position, fn); err != nil {
			return err
		}
	}
	return nil
}

func readFileLines(path string, position *int64, fn func(*logLine) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := decompressed(f, path)
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte
	for line := 1; ; line++ {
		data, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer (an event with a large object) is gathered whole.
			long = append(long[:0], data...)
			for errors.Is(err, bufio.ErrBufferFull) {
				data, err = br.ReadSlice('\n')
				long = append(long, data...)
			}
			data = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if len(bytes.TrimSpace(data)) > 0 {
			l := logLine{file: path, line: line, position: *position, data: data}
			*position++
			if ferr := fn(&l); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// decompressed reads a gzipped file (by its first bytes, whatever its name) uncompressed.
func decompressed(f *os.File, path string) (io.Reader, error) {
	br := bufio.NewReader(f)
	magic, err := br.Peek(2)
	if err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, nil
	}
	gz, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &gzipErrors{gz: gz, path: path}, nil
}

// gzipErrors names the file in a gzipped file's errors: a file cut off while it was compressed
// reads as "unexpected EOF".
type gzipErrors struct {
	gz   *gzip.Reader
	path string
}

func (g *gzipErrors) Read(p []byte) (int, error) {
	n, err := g.gz.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip: %w (a rotated file cut off?)", err)
	}
	return n, err
}

// eventHead is what a log's reader needs of every event to decide whether to decode all of it:
// whether it is a write that reached its end, and of which object.
type eventHead struct {
	Stage     string     `json:"stage"`
	Verb      string     `json:"verb"`
	ObjectRef *objectRef `json:"objectRef"`
	// ResponseObject is the response's bytes, valid with the line's: a created object's
	// generated name is there.
	ResponseObject rawAlias `json:"responseObject"`
}

// objectRef is an audit event's object reference.
type objectRef struct {
	Resource    string `json:"resource"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	APIGroup    string `json:"apiGroup"`
	APIVersion  string `json:"apiVersion"`
	Subresource string `json:"subresource"`
}

// rawAlias keeps a JSON value's bytes without copying them: they are the line's.
type rawAlias []byte

func (r *rawAlias) UnmarshalJSON(data []byte) error {
	*r = data
	return nil
}

// head reads the line's event head, checking that the line is an event. The head is found by a
// scan of the event's members that decodes only the few it reads — a shard reads the head of
// every line of a log, most of them other shards' — and by encoding/json for a line the scan does
// not take (an escape in a key or in those values, anything but an object of plain members). The
// scan does not validate the members it skips: the whole event is decoded, and so checked, by the
// shard that owns it.
func (l *logLine) head() (eventHead, error) {
	var h eventHead
	if !scanHead(l.data, &h) {
		h = eventHead{}
		if err := json.Unmarshal(l.data, &h); err != nil {
			return h, l.notAnEvent(err)
		}
	}
	if h.Stage == "" || h.Verb == "" {
		return h, fmt.Errorf("%s: not an audit event (it has no stage or verb)", l)
	}
	return h, nil
}

// scanHead reads an event's head from its top-level members; false when the scan cannot say
// what encoding/json would.
func scanHead(data []byte, h *eventHead) bool {
	s := jsonscan.Scanner{Data: data}
	ok := s.Members(func(key []byte) bool {
		switch string(key) {
		case "stage":
			return scanString(&s, &h.Stage)
		case "verb":
			return scanString(&s, &h.Verb)
		case "objectRef":
			raw, ok := scanRaw(&s)
			if !ok {
				return false
			}
			if string(raw) == "null" {
				h.ObjectRef = nil
				return true
			}
			if h.ObjectRef == nil {
				// A key given twice decodes into what the first gave, as with encoding/json.
				h.ObjectRef = &objectRef{}
			}
			ref := h.ObjectRef
			if scanStrings(raw, []stringField{{"resource", &ref.Resource}, {"namespace", &ref.Namespace}, {"name", &ref.Name},
				{"apiGroup", &ref.APIGroup}, {"apiVersion", &ref.APIVersion}, {"subresource", &ref.Subresource}}) {
				return true
			}
			return json.Unmarshal(raw, ref) == nil
		case "responseObject":
			raw, ok := scanRaw(&s)
			h.ResponseObject = raw
			return ok
		}
		// encoding/json matches keys regardless of case: such a key is left to it.
		for _, name := range [...]string{"stage", "verb", "objectRef", "responseObject"} {
			if len(key) == len(name) && bytes.EqualFold(key, []byte(name)) {
				return false
			}
		}
		return s.SkipValue()
	})
	s.Space()
	return ok && s.Pos == len(data)
}

// stringField is a member of an object read as a string.
type stringField struct {
	key string
	dst *string
}

// scanStrings reads the string members fields name of the object raw, as encoding/json would
// into a struct of them; false when the scan cannot say what encoding/json would (a key that
// differs from one of them only by case, an escape, a value of another type).
func scanStrings(raw []byte, fields []stringField) bool {
	s := jsonscan.Scanner{Data: raw}
	return s.Members(func(key []byte) bool {
		for _, f := range fields {
			if string(key) == f.key {
				return scanString(&s, f.dst)
			}
			if len(key) == len(f.key) && bytes.EqualFold(key, []byte(f.key)) {
				return false
			}
		}
		return s.SkipValue()
	})
}

// scanRaw is the value at the scanner's position, moved past.
func scanRaw(s *jsonscan.Scanner) ([]byte, bool) {
	s.Space()
	start := s.Pos
	if !s.SkipValue() {
		return nil, false
	}
	return s.Data[start:s.Pos], true
}

// scanString reads a string without escapes into dst (null leaves it as it is, as
// encoding/json does); false for anything else.
func scanString(s *jsonscan.Scanner, dst *string) bool {
	raw, ok := scanRaw(s)
	switch {
	case !ok:
		return false
	case string(raw) == "null":
		return true
	case len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw):
		// encoding/json unescapes, and replaces invalid UTF-8: left to it.
		return false
	}
	*dst = string(raw[1 : len(raw)-1])
	return true
}

// event decodes the whole line's event.
func (l *logLine) event() (*event, error) {
	ev := &event{}
	if err := json.Unmarshal(l.data, ev); err != nil {
		return nil, l.notAnEvent(err)
	}
	if ev.Stage == "" || ev.Verb == "" {
		return nil, fmt.Errorf("%s: not an audit event (it has no stage or verb)", l)
	}
	return ev, nil
}

// isWrite reports an event of a write that reached its end.
func (h *eventHead) isWrite() bool {
	if h.Stage != "ResponseComplete" || h.ObjectRef == nil || h.ObjectRef.Resource == "" {
		return false
	}
	switch h.Verb {
	case "create", "update", "patch", "delete":
		return true
	}
	return false
}

func (h *eventHead) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: h.ObjectRef.APIGroup, Version: h.ObjectRef.APIVersion, Resource: h.ObjectRef.Resource}
}

// key is the key of the object the event wrote; a create's generated name is its response's.
func (h *eventHead) key() ObjectKey {
	return writtenKey(h.ObjectRef, h.Verb, h.ResponseObject)
}

// writtenKey is the key of the object an event wrote: its reference's, with, for a create
// without a name (generateName), the name its response gives.
func writtenKey(ref *objectRef, verb string, response []byte) ObjectKey {
	k := ObjectKey{Group: ref.APIGroup, Resource: ref.Resource, Namespace: ref.Namespace, Name: ref.Name}
	if k.Name == "" && verb == "create" && len(response) > 0 && response[0] == '{' {
		if kind, name, ok := scanKindAndName(response); ok {
			if kind != "" && kind != "Status" {
				k.Name = name
			}
			return k
		}
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(response, &obj) == nil && obj.Kind != "" && obj.Kind != "Status" {
			k.Name = obj.Metadata.Name
		}
	}
	return k
}

// SpoolLog copies a log from r — standard input — to a temporary file, to be read twice as a
// Log named label; remove deletes the copy, whatever the error. Memory stays bounded: the copy
// is streamed.
func SpoolLog(r io.Reader, label string) (log *Log, remove func(), err error) {
	f, err := os.CreateTemp("", "admit-audit-log-*")
	if err != nil {
		return nil, func() {}, err
	}
	remove = func() { os.Remove(f.Name()) }
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, remove, fmt.Errorf("%s: %w", label, err)
	}
	return &Log{Path: f.Name(), Label: label}, remove, nil
}

// scanKindAndName reads an object's kind and metadata.name as encoding/json would; ok false
// when the scan cannot say.
func scanKindAndName(object []byte) (kind, name string, ok bool) {
	s := jsonscan.Scanner{Data: object}
	ok = s.Members(func(key []byte) bool {
		switch {
		case string(key) == "kind":
			return scanString(&s, &kind)
		case string(key) == "metadata":
			raw, ok := scanRaw(&s)
			return ok && (string(raw) == "null" || scanStrings(raw, []stringField{{"name", &name}}))
		case bytes.EqualFold(key, []byte("kind")), bytes.EqualFold(key, []byte("metadata")):
			return false
		}
		return s.SkipValue()
	})
	return kind, name, ok
}
