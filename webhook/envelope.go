package webhook

import (
	"github.com/admitkit/admit/internal/jsonscan"
	"github.com/admitkit/admit/internal/typedjson"
	"github.com/admitkit/admit/patch"
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
	s := jsonscan.Scanner{Data: body}
	seenRequest := false
	ok = s.Members(func(key []byte) bool {
		if string(key) != "request" {
			return s.SkipValue()
		}
		if seenRequest || s.Peek() != '{' {
			return false
		}
		seenRequest = true
		return s.Members(func(key []byte) bool {
			var target *valueSpan
			switch string(key) {
			case "object":
				target = &object
			case "oldObject":
				target = &oldObject
			default:
				return s.SkipValue()
			}
			if target.end != 0 {
				return false // a repeated member: the strict decode names it
			}
			s.Space()
			start := s.Pos
			if !s.SkipValue() || s.Pos == start {
				return false
			}
			*target = valueSpan{start, s.Pos}
			return true
		})
	})
	s.Space()
	return object, oldObject, ok && s.Pos == len(body)
}
