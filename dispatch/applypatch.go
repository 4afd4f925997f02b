package dispatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/admitkit/admit/engine"
	"strings"
	"unicode/utf8"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/admitkit/admit/patch"
)

// appliedPatch is a webhook's patch applied to the object.
type appliedPatch struct {
	object  []byte
	changed bool // the object differs from the one the patch was applied to
	// ops is the patch as patch.Apply applied it: the values it wrote and where. Nil when
	// evanphx applied the patch.
	ops patch.Patch
}

// applyPatch applies a mutating webhook's decoded JSON patch to the object as kube-apiserver
// does, with gopkg.in/evanphx/json-patch.v4's semantics and messages.
//
// evanphx decodes the whole object into lazy nodes and encodes it again; that was most of the
// dispatcher's CPU. The patches webhooks send (add, remove and replace below the object's root)
// are applied instead by patch.Apply on the object's tokens, which resolves paths as evanphx
// does and leaves everything else as it was written: FuzzApplyMatchesEvanphx holds the two to
// the same JSON value. Every other patch, and every patch the fast path cannot apply, is
// applied by evanphx itself, so each failure carries the apiserver's exact message.
//
// parsed, when not nil, is the object already parsed (engine.Attributes.ParsedObject), used
// when it is the object given.
func applyPatch(object []byte, parsed *patch.Document, ops jsonpatch.Patch) (appliedPatch, error) {
	if fast, ok := fastPatch(ops); ok && len(object) > 0 && object[0] == '{' {
		var (
			patched []byte
			changed bool
			err     error
		)
		if parsed != nil && string(parsed.Bytes()) == string(object) {
			patched, changed, err = parsed.ApplyChanged(fast)
		} else {
			patched, changed, err = patch.ApplyChanged(object, fast)
		}
		if err == nil && utf8.Valid(patched) {
			return appliedPatch{object: patched, changed: changed, ops: fast}, nil
		}
	}
	patched, err := applyEvanphx(object, ops)
	if err != nil {
		return appliedPatch{}, err
	}
	if !utf8.Valid(patched) {
		if patched, err = replaceInvalidUTF8(patched); err != nil {
			return appliedPatch{}, err
		}
	}
	return appliedPatch{object: patched, changed: !engine.SemanticallyEqual(object, patched)}, nil
}

// replaceInvalidUTF8 re-encodes an object whose strings hold bytes that are not UTF-8 (a patch
// can write them: JSON patches carry raw bytes) as kube-apiserver ends up with it: the apiserver
// decodes every patched object, and decoding replaces each invalid byte with U+FFFD.
func replaceInvalidUTF8(object []byte) ([]byte, error) {
	var value any
	decoder := json.NewDecoder(bytes.NewReader(object))
	decoder.UseNumber()
	if err := decoder.Decode(&value); err != nil {
		return nil, fmt.Errorf("decoding the patched object: %w", err)
	}
	var out bytes.Buffer
	encoder := json.NewEncoder(&out)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		return nil, fmt.Errorf("encoding the patched object: %w", err)
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}

// fastPatch converts an evanphx patch for patch.Apply if every operation is an add, remove or
// replace of a path below the root: operations whose meaning patch.Apply shares with evanphx.
// An add or replace without a value writes null in both.
func fastPatch(ops jsonpatch.Patch) (patch.Patch, bool) {
	fast := make(patch.Patch, len(ops))
	for i, op := range ops {
		kind := op.Kind()
		if kind != patch.OpAdd && kind != patch.OpRemove && kind != patch.OpReplace {
			return nil, false
		}
		path, err := op.Path()
		if err != nil || !strings.HasPrefix(path, "/") {
			return nil, false
		}
		fast[i] = patch.Operation{Op: kind, Path: path}
		if value := op["value"]; kind != patch.OpRemove && value != nil {
			fast[i].Value = *value
		}
	}
	return fast, true
}

// applyEvanphx applies the patch with evanphx, turning its panics into errors: a patch that
// adds below a copied null makes it assign to a nil map. kube-apiserver's panic recovery turns
// the same panic into an internal error for the request.
func applyEvanphx(object []byte, ops jsonpatch.Patch) (patched []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			patched, err = nil, fmt.Errorf("applying the patch panicked: %v", v)
		}
	}()
	return ops.Apply(object)
}
