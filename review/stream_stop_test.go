package review

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// configMaps are n ConfigMaps in the namespace shop, sourced input.yaml:1, input.yaml:2, ...
func configMaps(t *testing.T, n int) []Input {
	t.Helper()
	var out []Input
	for i := range n {
		in := parseInputs(t, "x.yaml", configMapYAML(fmt.Sprintf("cm-%d", i), "shop"))[0]
		in.Source = fmt.Sprintf("input.yaml:%d", i+1)
		out = append(out, in)
	}
	return out
}

// surveyedStream surveys source and prepares its review with cfg.
func surveyedStream(t *testing.T, cfg Config, source Source) *Stream {
	t.Helper()
	survey, err := SurveyOf(source)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewStream(cfg, survey, nil, Write{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// emit's error stops the review: Review returns it, emit is not called again, and progress is
// reported for the outcomes emit took.
func TestStreamStopsAtEmitsError(t *testing.T) {
	objects := configMaps(t, 40)
	stop := errors.New("the reader went away")
	for _, concurrency := range []int{1, 16} {
		t.Run(fmt.Sprintf("concurrency=%d", concurrency), func(t *testing.T) {
			var mu sync.Mutex
			var progress []int
			cfg := quickstartConfig(t)
			cfg.Concurrency = concurrency
			cfg.Progress = func(done, total int) {
				mu.Lock()
				defer mu.Unlock()
				progress = append(progress, done*1000+total)
			}
			st := surveyedStream(t, cfg, SliceSource(objects))
			var emitted []string
			err := st.Review(context.Background(), func(o *Outcome) error {
				emitted = append(emitted, o.Source)
				if len(emitted) == 3 {
					return stop
				}
				return nil
			})
			if err != stop {
				t.Errorf("Review: %v, want emit's error", err)
			}
			if diff := cmp.Diff([]string{"input.yaml:1", "input.yaml:2", "input.yaml:3"}, emitted); diff != "" {
				t.Errorf("emitted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]int{1040, 2040}, progress); diff != "" {
				t.Errorf("progress, done*1000+total (-want +got):\n%s", diff)
			}
		})
	}
}

// changingSource is a Source that reads differently each time: the nth reading gives each[n],
// the last once they are used up.
type changingSource struct {
	n    int
	each [][]Input
}

func (r *changingSource) next() Source {
	s := SliceSource(r.each[min(r.n, len(r.each)-1)])
	r.n++
	return s
}

func (r *changingSource) Scan(fn func(Input)) error       { return r.next().Scan(fn) }
func (r *changingSource) Each(fn func(Input) error) error { return r.next().Each(fn) }

// An input that reads differently on a later reading is an error: NewStream's when the requests
// are built, Review's when the objects are admitted, those read before it emitted.
func TestStreamInputChanged(t *testing.T) {
	cms := configMaps(t, 4)
	gadget := parseInputs(t, "gadget.yaml", "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: shop}\n")
	tests := []struct {
		name      string
		cfg       Config
		each      [][]Input
		newErr    string
		reviewErr string
		emitted   int
	}{{
		name:   "one more object when the requests are built",
		each:   [][]Input{cms[:3], cms[:4]},
		newErr: "the input changed while it was reviewed: 3 objects at first, 4 when read again",
	}, {
		name:      "one fewer when reviewed",
		each:      [][]Input{cms[:3], cms[:3], cms[:2]},
		reviewErr: "the input changed while it was reviewed: 3 objects at first, 2 when read again",
		emitted:   2,
	}, {
		name:      "one more when reviewed",
		each:      [][]Input{cms[:3], cms[:3], cms[:4]},
		reviewErr: "the input changed while it was reviewed: 3 objects at first, 4 when read again",
		emitted:   4,
	}, {
		name:      "the state complete and no olds: the requests are built as reviewed",
		cfg:       Config{CompleteState: true},
		each:      [][]Input{cms[:3], cms[:4]},
		reviewErr: "the input changed while it was reviewed: 3 objects at first, 4 when read again",
		emitted:   4,
	}, {
		name:      "an object to admit where there was none",
		cfg:       Config{SkipMissingCRDs: true},
		each:      [][]Input{gadget, gadget, cms[:1]},
		reviewErr: "the input changed while it was reviewed: input.yaml:1 is to be admitted, and was not when first read",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			survey, err := SurveyOf(&changingSource{each: tt.each})
			if err != nil {
				t.Fatal(err)
			}
			st, err := NewStream(tt.cfg, survey, nil, Write{})
			if got := errText(err); got != tt.newErr {
				t.Fatalf("NewStream: %q, want %q", got, tt.newErr)
			}
			if err != nil {
				return
			}
			emitted := 0
			err = st.Review(context.Background(), func(*Outcome) error { emitted++; return nil })
			if got := errText(err); got != tt.reviewErr || emitted != tt.emitted {
				t.Errorf("Review: %q after %d outcomes, want %q after %d", got, emitted, tt.reviewErr, tt.emitted)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A cancelled context ends the review with the context's error: cancelled before it starts,
// or while outcomes are emitted.
func TestStreamCancelled(t *testing.T) {
	objects := configMaps(t, 40)
	for _, concurrency := range []int{1, 16} {
		t.Run(fmt.Sprintf("concurrency=%d", concurrency), func(t *testing.T) {
			st := surveyedStream(t, Config{Concurrency: concurrency}, SliceSource(objects))
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := st.Review(ctx, func(*Outcome) error { return nil }); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled before: %v, want %v", err, context.Canceled)
			}

			ctx, cancel = context.WithCancel(context.Background())
			defer cancel()
			emitted := 0
			err := st.Review(ctx, func(*Outcome) error {
				emitted++
				cancel()
				return nil
			})
			if !errors.Is(err, context.Canceled) || emitted != 1 {
				t.Errorf("cancelled at the first outcome: %v after %d outcomes; want %v after 1", err, emitted, context.Canceled)
			}
		})
	}
}

// A survey's namespaces are those the objects name, sorted, and the given one for the objects
// that name none (a cluster-scoped object among them).
func TestSurveyNamespaces(t *testing.T) {
	tests := []struct {
		name, input, namespace string
		want                   []string
	}{{
		name:      "named, and some naming none",
		input:     configMapYAML("b", "b") + "---\n" + configMapYAML("a", "a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		namespace: "team",
		want:      []string{"a", "b", "team"},
	}, {
		name:      "a cluster-scoped object names none",
		input:     configMapYAML("z", "zeta") + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n",
		namespace: "alpha",
		want:      []string{"alpha", "zeta"},
	}, {
		name:      "all named",
		input:     configMapYAML("b", "b") + "---\n" + configMapYAML("a", "a") + "---\n" + configMapYAML("a2", "a"),
		namespace: "team",
		want:      []string{"a", "b"},
	}, {
		name:      "the default named too",
		input:     configMapYAML("b", "team") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		namespace: "team",
		want:      []string{"team"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			survey, err := SurveyOf(SliceSource(parseInputs(t, "input.yaml", tt.input)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, survey.Namespaces(tt.namespace)); diff != "" {
				t.Errorf("namespaces (-want +got):\n%s", diff)
			}
		})
	}
}

// A stream that admits nothing assumes nothing of the cluster, as Session.Review; one that
// admits something says what it assumed, as Session.Review does.
func TestStreamAssumed(t *testing.T) {
	gadgets := "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: shop}\n---\napiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: h}\n"
	tests := []struct {
		name     string
		input    string
		complete bool
		assumes  bool
	}{
		{name: "all skipped", input: gadgets},
		{name: "all skipped, the state complete", input: gadgets, complete: true},
		{name: "one admitted", input: gadgets + "---\n" + configMapYAML("cm", "shop"), assumes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objects := parseInputs(t, "input.yaml", tt.input)
			cfg := Config{SkipMissingCRDs: true, CompleteState: tt.complete}
			held, err := reviewHeld(t, cfg, objects, nil, Write{})
			if err != nil {
				t.Fatal(err)
			}
			st := surveyedStream(t, cfg, SliceSource(objects))
			skipped := 0
			if err := st.Review(context.Background(), func(o *Outcome) error {
				if o.Skipped != "" {
					skipped++
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if skipped != strings.Count(tt.input, "kind: Gadget") {
				t.Errorf("%d skipped, want every Gadget", skipped)
			}
			if diff := cmp.Diff(held.assumed, st.Assumed()); diff != "" || (st.Assumed() != nil) != tt.assumes {
				t.Errorf("assumed %q, want Session.Review's (-held +streamed):\n%s", st.Assumed(), diff)
			}
		})
	}
}
