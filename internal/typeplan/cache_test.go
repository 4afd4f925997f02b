package typeplan

import (
	"reflect"
	"sync"
	"testing"
)

type node struct {
	Name     string
	Children []*node
}

// plan is a test plan: the type, and the plans of what it holds.
type plan struct {
	typ   reflect.Type
	elems []*plan
}

func fill(calls *int) Fill[plan] {
	return func(planOf func(reflect.Type) *plan, t reflect.Type, p *plan) {
		*calls++
		p.typ = t
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice:
			p.elems = []*plan{planOf(t.Elem())}
		case reflect.Struct:
			for i := range t.NumField() {
				p.elems = append(p.elems, planOf(t.Field(i).Type))
			}
		}
	}
}

// Each type is planned once, a recursive type's plan refers to itself, and every caller, at
// any concurrency, gets the same plan.
func TestGet(t *testing.T) {
	var c Cache[plan]
	calls := 0
	// Planning is serialized by the cache: the race detector holds calls to that.
	counted := fill(&calls)
	nodeType := reflect.TypeFor[node]()
	plans := make([]*plan, 16)
	var wg sync.WaitGroup
	for i := range plans {
		wg.Go(func() { plans[i] = c.Get(nodeType, counted) })
	}
	wg.Wait()
	for _, p := range plans[1:] {
		if p != plans[0] {
			t.Fatal("callers got different plans for one type")
		}
	}
	// node, string, []*node, *node: four types, each planned once.
	if calls != 4 {
		t.Errorf("fill ran %d times, want 4", calls)
	}
	root := plans[0]
	if root.typ != nodeType || len(root.elems) != 2 {
		t.Fatalf("node's plan: %+v", root)
	}
	children := root.elems[1]
	if got := children.elems[0].elems[0]; got != root {
		t.Errorf("[]*node's element's plan is %p, want node's own plan %p", got, root)
	}
	if c.Get(reflect.TypeFor[*node](), counted) != children.elems[0] || calls != 4 {
		t.Errorf("a type planned along the way was planned again")
	}
}
