package extension

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Registry holds the extensions a Caller may call, by name. It is safe for concurrent use:
// discovery may refresh it while calls are in flight, and a call sees either the old or the new
// registration of an extension, never a mix.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]*registered
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]*registered{}}
}

// Register validates extensions and adds them, replacing any registered under the same names (so
// a fresh discovery result can be registered again). It is all or nothing: when any extension is
// invalid, or two share a name, nothing is registered and the error lists every problem.
func (r *Registry) Register(extensions ...Extension) error {
	prepared := make([]*registered, 0, len(extensions))
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, e := range extensions {
		path := field.NewPath("extensions").Index(i)
		if seen[e.Name] {
			errs = append(errs, field.Duplicate(path.Child("name"), e.Name))
		}
		seen[e.Name] = true
		p, pErrs := e.prepare(path)
		errs = append(errs, pErrs...)
		prepared = append(prepared, p)
	}
	if len(errs) > 0 {
		return fmt.Errorf("registering extensions: %w", joinFieldErrors(errs))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range prepared {
		r.byName[p.Name] = p
	}
	return nil
}

// Unregister removes the named extensions; unknown names are ignored.
func (r *Registry) Unregister(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range names {
		delete(r.byName, name)
	}
}

// Get returns the extension registered under name.
func (r *Registry) Get(name string) (Extension, bool) {
	p, ok := r.lookup(name)
	if !ok {
		return Extension{}, false
	}
	return p.Extension, true
}

// List returns the extensions serving hook, sorted by name: the order CallAll calls and
// aggregates them in.
func (r *Registry) List(hook Hook) []Extension {
	var out []Extension
	for _, p := range r.forHook(hook) {
		out = append(out, p.Extension)
	}
	return out
}

func (r *Registry) lookup(name string) (*registered, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.byName[name]
	return p, ok
}

// forHook returns the registrations serving hook sorted by name, so that call order, error
// lists and aggregated messages do not depend on map iteration (Cluster API's differ per call).
func (r *Registry) forHook(hook Hook) []*registered {
	r.mu.RLock()
	var out []*registered
	for _, p := range r.byName {
		if p.Hook == hook {
			out = append(out, p)
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b *registered) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// joinFieldErrors renders every field error on its own, separated by "; ", so that a long list
// stays readable in a log line (field.ErrorList.ToAggregate wraps them in brackets).
func joinFieldErrors(errs field.ErrorList) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return &validationError{msg: strings.Join(msgs, "; "), errs: errs}
}

// validationError keeps the individual field errors reachable through errors.As.
type validationError struct {
	msg  string
	errs field.ErrorList
}

func (e *validationError) Error() string { return e.msg }

func (e *validationError) Unwrap() []error {
	out := make([]error, len(e.errs))
	for i, fe := range e.errs {
		out[i] = fe
	}
	return out
}
