package review

import (
	"fmt"
	"io"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/admitkit/admit/engine"
)

// Single is one object's review as `admit review -o json|yaml` prints it: the review contract
// (engine.Result), and what was assumed of the cluster.
type Single struct {
	*engine.Result
	Assumed []string `json:"assumed,omitempty"`
}

// List is several objects' reviews as `admit review -o json|yaml` prints them: a List, as
// kubectl prints several objects, whose items are the reviews in input order.
type List struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Items      []Entry `json:"items"`
}

// Entry is one object of a List: which object, then the review contract's fields, or the error
// that kept it from being reviewed.
type Entry struct {
	Source    string                `json:"source"`
	Operation admissionv1.Operation `json:"operation,omitempty"`
	Kind      string                `json:"kind,omitempty"`
	Namespace string                `json:"namespace,omitempty"`
	Name      string                `json:"name,omitempty"`
	Error     string                `json:"error,omitempty"`
	// Skipped says why the object was not reviewed, and it is no error (Config.SkipMissingCRDs).
	Skipped string `json:"skipped,omitempty"`
	*engine.Result
}

// ListOf is the List of outcomes.
func ListOf(outcomes []*Outcome) List {
	out := List{APIVersion: "v1", Kind: "List", Items: make([]Entry, len(outcomes))}
	for i, r := range outcomes {
		out.Items[i] = entryOf(r)
	}
	return out
}

// entryOf is an outcome's entry of a List.
func entryOf(r *Outcome) Entry {
	e := Entry{Source: r.Source, Result: r.Result}
	switch {
	case r.Request != nil:
		e.Operation, e.Kind, e.Namespace, e.Name = r.Request.Operation, r.Request.Kind.Kind, r.Request.Namespace, r.Name()
	case r.Object != nil:
		// Not reviewed: still say which object it is.
		e.Kind, e.Namespace, e.Name = r.Object.GetKind(), r.Object.GetNamespace(), r.Object.GetName()
	}
	if r.Err != nil {
		e.Error = r.Err.Error()
	}
	e.Skipped = r.Skipped
	return e
}

// WriteAssumed says, after a review's text, what it took for granted about the cluster
// (Session.Assumed).
func WriteAssumed(w io.Writer, assumed []string) {
	if len(assumed) == 0 {
		return
	}
	fmt.Fprintln(w, "\nAssumed of the cluster (--cluster gives its state):")
	for _, a := range assumed {
		fmt.Fprintf(w, "  - %s\n", a)
	}
}
