package typeplan

import (
	"reflect"
	"sync"
)

// Cache holds a plan of type P per Go type. The zero Cache is ready to use and safe for
// concurrent use; a plan, once made, never changes.
type Cache[P any] struct {
	plans sync.Map // reflect.Type → *P
	// building serializes planning, so that each type, recursive ones included, is planned once.
	building sync.Mutex
}

// Fill makes t's plan in p. planOf returns the plan of another type, which may still be in the
// making: a recursive type's plan refers to itself.
type Fill[P any] func(planOf func(reflect.Type) *P, t reflect.Type, p *P)

// Get returns t's plan, made with fill on first use together with the plans it needs.
func (c *Cache[P]) Get(t reflect.Type, fill Fill[P]) *P {
	if p, ok := c.plans.Load(t); ok {
		return p.(*P)
	}
	c.building.Lock()
	defer c.building.Unlock()
	// Plans are published only once whole: another goroutine never sees one in the making.
	building := map[reflect.Type]*P{}
	var planOf func(reflect.Type) *P
	planOf = func(t reflect.Type) *P {
		if p, ok := c.plans.Load(t); ok {
			return p.(*P)
		}
		if p, ok := building[t]; ok {
			return p
		}
		p := new(P)
		building[t] = p
		fill(planOf, t, p)
		return p
	}
	p := planOf(t)
	for typ, made := range building {
		c.plans.Store(typ, made)
	}
	return p
}
