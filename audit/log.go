package audit

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/internal/words"
	"github.com/admitkit/admit/resources"
)

// Log is a Kubernetes audit log whose writes are replayed: each create, update, patch or delete —
// of a resource or a subresource — becomes the admission it was, with its user and groups and
// the options of its request; an UPDATE's old object is the object as the log last showed it
// stored (the previous event's response at RequestResponse level, its request at Request
// level), a patch applied to it.
//
// The log is a file or a directory of its rotated files (gzipped or not), read twice — its
// state, then its writes — a line at a time, in bounded memory whatever its size. A shard
// decodes in full only the events of the objects it owns and of the state.
type Log struct {
	// Path is the log's file or directory.
	Path string
	// Label, when set, names the log in the report and its errors instead of Path: "standard
	// input" for a copy of it.
	Label string
}

// Name is the log's label, or its path.
func (l *Log) Name() string { return cmp.Or(l.Label, l.Path) }

// files are the log's files, the oldest first; a copy's lines are named after its label.
func (l *Log) files() ([]string, error) {
	files, err := logFiles(l.Path)
	if err != nil && l.Label != "" {
		return nil, fmt.Errorf("%s: %w", l.Label, err)
	}
	return files, err
}

// lines reads the log's lines, named after its label when it has one.
func (l *Log) lines(fn func(*logLine) error) error {
	files, err := l.files()
	if err != nil {
		return err
	}
	if l.Label == "" {
		return readLines(files, fn)
	}
	return readLines(files, func(line *logLine) error {
		line.file = l.Label
		return fn(line)
	})
}

// Scan counts the log's writes and their namespaces, and keeps the state as the log last shows
// it (sorted, so that it is the same from run to run).
func (l *Log) Scan(ctx context.Context, opts ScanOptions) (Scan, error) {
	var out Scan
	namespaces := map[string]bool{}
	mapper, err := resources.Builtin()
	if err != nil {
		return Scan{}, err
	}
	isState := func(gvr schema.GroupVersionResource) bool {
		kind, err := mapper.KindFor(gvr, "")
		gk := kind.GroupKind()
		return err == nil && (resources.IsState(gk) || resources.IsCRD(gk))
	}
	state := newReplay(mapper, isState, false)
	events := 0
	err = l.lines(func(line *logLine) error {
		head, err := line.head()
		if err != nil {
			return err
		}
		events++
		if !head.isWrite() {
			return nil
		}
		out.Writes++
		if head.ObjectRef.Namespace != "" {
			namespaces[head.ObjectRef.Namespace] = true
		}
		if !opts.State || !isState(head.gvr()) {
			return nil
		}
		ev, err := line.event()
		if err != nil {
			return err
		}
		state.write(line, ev)
		return nil
	})
	if err != nil {
		return Scan{}, err
	}
	// A log with nothing to replay is most often the wrong file, or a rotated one: an audit of
	// nothing must not pass for an audit of last week.
	switch {
	case events == 0:
		return Scan{}, fmt.Errorf("%s holds no audit events", l.Name())
	case out.Writes == 0:
		return Scan{}, fmt.Errorf("%s: no write to replay among its %s (a create, update, patch or delete at stage ResponseComplete)", l.Name(), words.Plural(events, "event", "events"))
	}
	for _, data := range state.stored {
		if obj := eventObject(data); obj != nil {
			out.State = append(out.State, obj)
		}
	}
	slices.SortFunc(out.State, func(a, b *unstructured.Unstructured) int {
		return cmp.Or(strings.Compare(a.GetKind(), b.GetKind()), strings.Compare(a.GetNamespace(), b.GetNamespace()), strings.Compare(a.GetName(), b.GetName()))
	})
	out.Namespaces = sortedKeys(namespaces)
	return out, nil
}

// Writes replays the log's writes, following only the objects a changed step can match. A
// shard reads the head of every event and decodes the rest of its own objects' only.
func (l *Log) Writes(ctx context.Context, sink Sink) error {
	mapper, err := resources.Builtin()
	if err != nil {
		return err
	}
	shard := sink.Shard()
	replay := newReplay(mapper, sink.Matcher().MatchesResource, sink.DryRun())
	return l.lines(func(line *logLine) error {
		if shard.Count > 1 {
			head, err := line.head()
			if err != nil {
				return err
			}
			if !head.isWrite() || replay.isConnect(head.ObjectRef) || !shard.Owns(head.key()) {
				return nil
			}
		}
		ev, err := line.event()
		if err != nil {
			return err
		}
		w, skip, ok := replay.write(line, ev)
		switch {
		case !ok:
			return nil
		case skip != "" && !sink.Matcher().Matches(ev.operation(), ev.gvr(), ev.ObjectRef.Subresource):
			// No changed step could match it: whether it could be replayed does not matter.
			sink.Unaffected()
			return nil
		case skip != "":
			sink.Skip(Skipped{One: "write", Many: "writes", Why: " not replayed: " + skip})
			return nil
		}
		return sink.Add(w)
	})
}
