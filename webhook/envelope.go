package webhook

import (
	"bytes"

	"github.com/admitkit/admit/patch"
	"github.com/admitkit/admit/webhook/internal/typedjson"
)

// decodeEnvelopeFast decodes a review without passing its objects through the decoder.
//
// Decoding the whole review validates every byte of the objects, then skips them again while
// decoding the envelope, then copies them: three passes over what is nearly all of the body.
// Here a plain scan finds request.object and request.oldObject, the envelope is decoded with
// null in their place, and each object is validated once and copied. When the envelope with
// nulls and each object are valid JSON, so is the whole body: a valid value was put where the
// envelope had a valid value.
//
// ok is false for anything but the plain shape: a key with an escape, a repeated member, text
// the scan does not understand, an envelope or object that does not decode. The caller then
// decodes the whole review, which reports the problem with its position in the body as sent.
//
// dec, when not nil, decodes the envelope in one pass; what it leaves, decodeStrict decodes.
func decodeEnvelopeFast(body []byte, dec *typedjson.Decoder) (review reviewEnvelope, ok bool) {
	object, oldObject, found := locateObjects(body)
	if !found || object.len()+oldObject.len() == 0 {
		return reviewEnvelope{}, false // nothing to leave out: the whole decode costs no more
	}
	spans := []valueSpan{object, oldObject}
	if oldObject.start < object.start {
		spans[0], spans[1] = oldObject, object
	}
	envelope := make([]byte, 0, len(body)-object.len()-oldObject.len()+8)
	at := 0
	for _, s := range spans {
		if s.len() > 0 {
			envelope = append(append(envelope, body[at:s.start]...), "null"...)
			at = s.end
		}
	}
	envelope = append(envelope, body[at:]...)
	if dec == nil || !dec.Decode(envelope, &review) {
		review = reviewEnvelope{}
		if decodeStrict(envelope, &review) != nil {
			return reviewEnvelope{}, false
		}
	}
	if review.Request == nil {
		return reviewEnvelope{}, false
	}
	raws := make([]byte, 0, object.len()+oldObject.len())
	for _, f := range []struct {
		span valueSpan
		raw  *[]byte
	}{{object, &review.Request.Object.Raw}, {oldObject, &review.Request.OldObject.Raw}} {
		value := body[f.span.start:f.span.end]
		if len(value) == 0 || string(value) == "null" {
			continue // what a RawExtension makes of null: no Raw
		}
		if !patch.Valid(value) {
			return reviewEnvelope{}, false
		}
		start := len(raws)
		raws = append(raws, value...)
		*f.raw = raws[start:len(raws):len(raws)] // the body's buffer is reused after the request
	}
	return review, true
}

// valueSpan is a value's byte range in the body; empty when the member is absent.
type valueSpan struct{ start, end int }

func (s valueSpan) len() int { return s.end - s.start }

// locateObjects finds the values of request.object and request.oldObject.
func locateObjects(body []byte) (object, oldObject valueSpan, ok bool) {
	s := scanner{data: body}
	seenRequest := false
	ok = s.members(func(key []byte) bool {
		if string(key) != "request" {
			return s.skipValue()
		}
		if seenRequest || s.peek() != '{' {
			return false
		}
		seenRequest = true
		return s.members(func(key []byte) bool {
			var target *valueSpan
			switch string(key) {
			case "object":
				target = &object
			case "oldObject":
				target = &oldObject
			default:
				return s.skipValue()
			}
			if target.end != 0 {
				return false // a repeated member: the strict decode names it
			}
			s.space()
			start := s.pos
			if !s.skipValue() || s.pos == start {
				return false
			}
			*target = valueSpan{start, s.pos}
			return true
		})
	})
	s.space()
	return object, oldObject, ok && s.pos == len(body)
}

// scanner walks JSON text without validating it; a caller validates what it keeps.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next byte after whitespace, or 0 at the end.
func (s *scanner) peek() byte {
	s.space()
	if s.pos == len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// members walks an object, calling member with each key (positioned before its value).
func (s *scanner) members(member func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.pos++
	if s.peek() == '}' {
		s.pos++
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		start := s.pos + 1
		if !s.skipString() {
			return false
		}
		key := s.data[start : s.pos-1]
		if bytes.IndexByte(key, '\\') >= 0 || s.peek() != ':' {
			return false
		}
		s.pos++
		if !member(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// skipString moves past the string starting at pos.
func (s *scanner) skipString() bool {
	for i := s.pos + 1; i < len(s.data); i++ {
		switch s.data[i] {
		case '\\':
			i++
		case '"':
			s.pos = i + 1
			return true
		}
	}
	return false
}

// skipValue moves past the value at pos: a string, a container (brackets counted outside
// strings) or a literal or number (up to the next delimiter).
func (s *scanner) skipValue() bool {
	switch s.peek() {
	case 0:
		return false
	case '"':
		return s.skipString()
	case '{', '[':
		depth := 0
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case '"':
				if !s.skipString() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos++
					return true
				}
			}
			s.pos++
		}
		return false
	}
	start := s.pos
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return s.pos > start
		}
		s.pos++
	}
	return s.pos > start
}
