package review

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// AdmitEach hands on each outcome in order with the result Admit gives it, so that a caller
// may drop each once read: the outcomes it dropped do not change those still to come.
func TestAdmitEachIsAdmit(t *testing.T) {
	base := quickstartConfig(t)
	for _, tt := range streamCases() {
		if tt.wantErr != "" {
			continue // an input Requests refuses: nothing to admit
		}
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			objects := parseInputs(t, "input.yaml", tt.input)
			olds := parseInputs(t, "old.yaml", tt.olds)
			held, err := reviewHeld(t, cfg, objects, olds, tt.w)
			if err != nil {
				t.Fatal(err)
			}
			objects = copyInputs(objects)
			s, err := New(cfg, objects)
			if err != nil {
				t.Fatal(err)
			}
			outcomes, err := s.Requests(objects, copyInputs(olds), tt.w)
			if err != nil {
				t.Fatal(err)
			}
			var handed []*Outcome
			err = s.AdmitEach(context.Background(), outcomes, func(o *Outcome) {
				kept := *o
				handed = append(handed, &kept)
				*o = Outcome{} // dropped, as a caller reading each once does
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(handed) != len(objects) {
				t.Fatalf("%d outcomes handed on, want %d", len(handed), len(objects))
			}
			for i, o := range handed {
				if o.Source != objects[i].Source {
					t.Errorf("outcome %d is %s's, want %s's: not in input order", i, o.Source, objects[i].Source)
				}
			}
			got := printedReview{listJSON(t, handed), s.Assumed()}
			if diff := cmp.Diff(held, got, cmp.AllowUnexported(printedReview{})); diff != "" {
				t.Errorf("AdmitEach differs from Admit (-Admit +AdmitEach):\n%s", diff)
			}
		})
	}
}

// A cancelled context ends AdmitEach with its error, and no outcome is handed on after it.
func TestAdmitEachCancelled(t *testing.T) {
	s, err := New(quickstartConfig(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := s.Requests(configMaps(t, 40), nil, Write{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	handed := 0
	err = s.AdmitEach(ctx, outcomes, func(*Outcome) {
		handed++
		if handed == 3 {
			cancel()
		}
	})
	if err != context.Canceled {
		t.Errorf("err = %v, want %v", err, context.Canceled)
	}
	if handed != 3 {
		t.Errorf("%d outcomes handed on, want 3: none after the cancel", handed)
	}
}
