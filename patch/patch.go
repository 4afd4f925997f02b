package patch

import (
	"encoding/json"
	"fmt"
)

// Operation names defined by RFC 6902. Diff and Lossless only produce add,
// remove and replace.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"
	OpMove    = "move"
	OpCopy    = "copy"
	OpTest    = "test"
)

// Operation is one RFC 6902 operation. Path and From are JSON Pointers
// (RFC 6901) and Value is raw JSON text. An add, replace or test always
// carries a value when marshalled: a nil Value is written as null.
type Operation struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  string          `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// UnmarshalJSON reads an operation as kube-apiserver's patch library reads one: member names
// match exactly, the last of repeated members counts, and an operation without "op" or
// "path", or a move or copy without "from", is refused. RFC 6902 requires them; read as empty
// strings instead, a missing path would stand for the whole document.
func (o *Operation) UnmarshalJSON(data []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return err
	}
	if members == nil {
		return fmt.Errorf("patch operation is null, not an object")
	}
	var op Operation
	if err := stringMember(members, "op", &op.Op, true); err != nil {
		return err
	}
	if err := stringMember(members, "path", &op.Path, true); err != nil {
		return fmt.Errorf("%s operation: %w", op.Op, err)
	}
	if err := stringMember(members, "from", &op.From, op.Op == OpMove || op.Op == OpCopy); err != nil {
		return fmt.Errorf("%s operation: %w", op.Op, err)
	}
	op.Value = members["value"]
	*o = op
	return nil
}

// stringMember reads the string member name into dst; required says its absence is an error.
func stringMember(members map[string]json.RawMessage, name string, dst *string, required bool) error {
	raw, ok := members[name]
	if !ok || string(raw) == "null" { // the patch library takes a null member for a missing one
		if required {
			return fmt.Errorf("missing %q", name)
		}
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%q: %w", name, err)
	}
	return nil
}

// Patch is an RFC 6902 JSON Patch: operations applied in order.
type Patch []Operation

// String is the patch as JSON, so that fmt's %s and %v print what a webhook sends rather than
// Go structs; a patch that cannot be encoded says why.
func (p Patch) String() string {
	out, err := p.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("<invalid patch: %v>", err)
	}
	return string(out)
}

// MarshalJSON writes the patch compactly; an empty or nil patch is "[]",
// never "null", because the API server reads "null" as an invalid patch.
func (p Patch) MarshalJSON() ([]byte, error) {
	size := 2
	for i := range p {
		size += 48 + len(p[i].Path) + len(p[i].From) + len(p[i].Value)
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i := range p {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = p[i].appendJSON(out); err != nil {
			return nil, fmt.Errorf("operation %d: %w", i, err)
		}
	}
	return append(out, ']'), nil
}

// MarshalJSON writes the operation with the value present whenever the
// operation needs one, even if that value is JSON null.
func (o Operation) MarshalJSON() ([]byte, error) {
	return o.appendJSON(make([]byte, 0, 48+len(o.Path)+len(o.From)+len(o.Value)))
}

func (o Operation) appendJSON(out []byte) ([]byte, error) {
	out = append(out, `{"op":`...)
	out = appendQuoted(out, o.Op)
	out = append(out, `,"path":`...)
	out = appendQuoted(out, o.Path)
	if o.From != "" {
		out = append(out, `,"from":`...)
		out = appendQuoted(out, o.From)
	}
	switch {
	case len(o.Value) > 0:
		spaced, err := validate("value", o.Value)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", o.Op, o.Path, err)
		}
		out = append(out, `,"value":`...)
		if spaced {
			out = appendCompact(out, o.Value)
		} else {
			out = append(out, o.Value...)
		}
	case o.Op == OpAdd || o.Op == OpReplace || o.Op == OpTest:
		out = append(out, `,"value":null`...)
	}
	return append(out, '}'), nil
}
