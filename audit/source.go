package audit

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/review"
)

// Source is where an audit's writes come from: a dump of objects (Dump), a live cluster
// (Cluster), an audit log (Log).
type Source interface {
	// Name names what is audited in the report.
	Name() string
	// Scan reads the source once, before its writes are audited: how many there are, the
	// namespaces they are in, and, when asked, the state admission reads as the source shows it.
	Scan(ctx context.Context, opts ScanOptions) (Scan, error)
	// Writes gives the sink each write to audit, in order. It stops at the sink's first error.
	Writes(ctx context.Context, sink Sink) error
}

// ScanOptions say what a Scan looks for besides the writes.
type ScanOptions struct {
	// State asks for the state admission reads: the source is the cluster's only picture.
	State bool
	// ParamKinds are the kinds the policies take as parameters, part of that state.
	ParamKinds []schema.GroupKind
}

// Scan is what a first reading of a source finds.
type Scan struct {
	// Writes counts the writes, when the source knows (0 otherwise).
	Writes int
	// Namespaces are the namespaces the writes are in.
	Namespaces []string
	// State is the state admission reads, as the source shows it.
	State []*unstructured.Unstructured
}

// Write is one write to audit: its object, the old object of an UPDATE, how it is written.
type Write struct {
	Object review.Input
	Old    *review.Input
	Write  review.Write
	// Resource is the resource written, when known before the request is built (an audit
	// log's); nil otherwise.
	Resource *schema.GroupVersionResource
	// Origin describes where the write comes from: an audit log's event.
	Origin string
	// Position is the write's place in the source, counting the writes of every shard (an
	// audit log's events, a dump's objects): the order of the report's lists, whatever the
	// sharding.
	Position int64
}

// Skipped says why writes are not audited, for the report's notes: words.Plural(count, One,
// Many) + Why, "3 writes not replayed: ...".
type Skipped struct {
	One  string `json:"one"`
	Many string `json:"many"`
	Why  string `json:"why"`
}

// Sink takes a source's writes.
type Sink interface {
	// Add audits a write.
	Add(Write) error
	// AddStored audits a stored object's next write, as the audit's options write one: an
	// UPDATE that changes nothing, or its CREATE again; position is as Write's.
	AddStored(in review.Input, position int64) error
	// Skip counts a write that is not audited, and why: a configuration in a dump, an event
	// that cannot be replayed. Unaffected counts a write no changed step can match, known so
	// before its request is built.
	Skip(Skipped)
	Unaffected()
	// Shard is the share of the writes audited: a source gives the sink the writes of the
	// objects it owns only (Shard.Owns), and tells them apart as cheaply as it can.
	Shard() Shard
	// KeyOf is a stored object's key, its resource as the audit knows its kind.
	KeyOf(*unstructured.Unstructured) ObjectKey
	// Note adds a note to the report.
	Note(string)
	// Matcher says what the changed steps can match.
	Matcher() *Matcher
	// Operation is how stored objects are written (AddStored); DryRun says whether writes are
	// dry runs.
	Operation() string
	DryRun() bool
	// Namespace is the only namespace audited, "" for all.
	Namespace() string
}
