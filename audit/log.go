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
type Log struct {
	Path string
}

// Name is the log's path.
func (l *Log) Name() string { return l.Path }

// Scan counts the log's writes and their namespaces, and keeps the state as the log last shows
// it (sorted, so that it is the same from run to run).
func (l *Log) Scan(ctx context.Context, opts ScanOptions) (Scan, error) {
	var out Scan
	namespaces := map[string]bool{}
	mapper, err := resources.Builtin()
	if err != nil {
		return Scan{}, err
	}
	state := newReplay(l.Path, mapper, func(gvr schema.GroupVersionResource) bool {
		kind, err := mapper.KindFor(gvr, "")
		gk := kind.GroupKind()
		return err == nil && (resources.IsState(gk) || resources.IsCRD(gk))
	}, false)
	events := 0
	err = eachEvent(l.Path, func(line int, ev *event) error {
		events++
		if !ev.isWrite() {
			return nil
		}
		out.Writes++
		if ev.ObjectRef.Namespace != "" {
			namespaces[ev.ObjectRef.Namespace] = true
		}
		if opts.State {
			state.write(line, ev)
		}
		return nil
	})
	if err != nil {
		return Scan{}, err
	}
	// A log with nothing to replay is most often the wrong file, or a rotated one: an audit of
	// nothing must not pass for an audit of last week.
	switch {
	case events == 0:
		return Scan{}, fmt.Errorf("%s holds no audit events", l.Path)
	case out.Writes == 0:
		return Scan{}, fmt.Errorf("%s: no write to replay among its %s (a create, update, patch or delete at stage ResponseComplete)", l.Path, words.Plural(events, "event", "events"))
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

// Writes replays the log's writes, following only the objects a changed step can match.
func (l *Log) Writes(ctx context.Context, sink Sink) error {
	mapper, err := resources.Builtin()
	if err != nil {
		return err
	}
	replay := newReplay(l.Path, mapper, sink.Matcher().MatchesResource, sink.DryRun())
	err = eachEvent(l.Path, func(line int, ev *event) error {
		w, skip, ok := replay.write(line, ev)
		switch {
		case !ok:
			return nil
		case skip != "" && !sink.Matcher().Matches(ev.operation(), ev.gvr(), ev.ObjectRef.Subresource):
			// No changed step could match it: whether it could be replayed does not matter.
			sink.Unaffected()
			return nil
		case skip != "":
			replay.skipped[skip]++
			sink.Skip()
			return nil
		}
		return sink.Add(w)
	})
	for _, why := range sortedKeys(boolKeys(replay.skipped)) {
		sink.Note(fmt.Sprintf("%s not replayed: %s", words.Plural(replay.skipped[why], "write", "writes"), why))
	}
	return err
}

func boolKeys(m map[string]int) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
