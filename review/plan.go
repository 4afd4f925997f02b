package review

import (
	"context"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/clusterstate"
)

// Plan is the first of two readings of outcomes that are built one at a time rather than held (a
// test suite's cases): it takes each outcome and keeps what admitting them together reads of
// them — the namespaces their requests live in, and the objects among them that the others'
// admission reads (a Namespace, a ServiceAccount, a LimitRange) — so that the Batches it opens
// admit the same outcomes, built again a batch at a time, as AdmitEach admits them held at
// once. It holds those few objects, not the outcomes.
type Plan struct {
	s          *Session
	accounts   *clusterstate.AccountUse
	candidates []*unstructured.Unstructured
	namespaces map[string]bool
	runnable   int
	// surveyed says the accounts have seen every object already (a Survey's): a ServiceAccount
	// that no object names is dropped as it is taken rather than held to the end.
	surveyed bool
}

// Plan starts a Plan of the Session's outcomes.
func (s *Session) Plan() *Plan {
	return &Plan{s: s, accounts: s.accountUse(), namespaces: map[string]bool{}}
}

// Take reads what admitting o with the others reads of it. An outcome without a request, or
// with an error, is not admitted and adds nothing.
func (p *Plan) Take(o *Outcome) {
	if o.Err != nil || o.Request == nil {
		return
	}
	p.runnable++
	if o.Object != nil && !p.surveyed {
		p.accounts.See(o.Object) // a survey has seen every object already
	}
	if obj := stateOf(o); obj != nil && (!p.surveyed || p.accounts.Reads(obj)) {
		p.candidates = append(p.candidates, obj)
	}
	if o.Request.Namespace != "" {
		p.namespaces[o.Request.Namespace] = true
	}
}

// Runnable counts the outcomes taken that are to be admitted.
func (p *Plan) Runnable() int { return p.runnable }

// Batches opens Batches that admit the outcomes taken, with the objects among them that the
// others read applied as if written together, and their namespaces existing unless the state
// is complete. Close them when done.
func (p *Plan) Batches(ctx context.Context) (*Batches, error) {
	d, closeChain, err := p.s.pipeline(ctx, p.reviewed(), p.namespaceList())
	if err != nil {
		return nil, err
	}
	return &Batches{s: p.s, d: d, close: closeChain}, nil
}

// reviewed are the objects taken that the others' admission reads, in the order taken: a
// ServiceAccount only when an object names it (or a policy takes ServiceAccounts as parameters),
// which is known once every outcome is taken.
func (p *Plan) reviewed() []*unstructured.Unstructured {
	return slices.DeleteFunc(slices.Clone(p.candidates), func(obj *unstructured.Unstructured) bool { return !p.accounts.Reads(obj) })
}

// namespaceList is the namespaces taken, sorted; none when the state is complete.
func (p *Plan) namespaceList() []string {
	if p.s.cfg.CompleteState {
		return nil
	}
	return slices.Sorted(maps.Keys(p.namespaces))
}
