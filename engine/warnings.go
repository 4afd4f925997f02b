package engine

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// The apiserver's limits on the warnings of one response.
const (
	warningBudgetRunes  = 4 * 1024
	truncatedWarningLen = 256
)

// warningRecorder collects the warnings of one admission the way the apiserver writes them into
// Warning headers: empty and duplicate warnings are ignored; a warning with control characters
// or invalid UTF-8 is dropped; once the total passes 4096 runes every warning, earlier ones
// included, is cut to 256 runes, and further warnings are dropped once the budget is used again.
type warningRecorder struct {
	mu         sync.Mutex
	seen       map[string]bool
	ordered    []string // every distinct warning, in order, including unwritable ones
	written    []string // what the client receives
	runes      int
	truncating bool
}

func (r *warningRecorder) add(text string) {
	if text == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.truncating && r.runes >= warningBudgetRunes {
		return
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if r.seen[text] {
		return
	}
	r.seen[text] = true
	r.ordered = append(r.ordered, text)

	item, n := text, utf8.RuneCountInString(text)
	if r.truncating && n > truncatedWarningLen {
		item, n = truncateRunes(text, truncatedWarningLen), truncatedWarningLen
	}
	if !writableWarning(item) {
		return
	}
	if r.runes+n <= warningBudgetRunes || r.truncating {
		r.runes += n
		r.written = append(r.written, item)
		return
	}
	// Over budget for the first time: start again with every warning truncated.
	r.truncating = true
	r.runes = 0
	r.written = r.written[:0]
	for _, w := range r.ordered {
		if utf8.RuneCountInString(w) > truncatedWarningLen {
			w = truncateRunes(w, truncatedWarningLen)
		}
		if writableWarning(w) {
			r.runes += utf8.RuneCountInString(w)
			r.written = append(r.written, w)
		}
	}
}

func (r *warningRecorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.written...)
}

func truncateRunes(s string, n int) string { return string([]rune(s)[:n]) }

// writableWarning is what fits a Warning header: valid UTF-8 without control characters.
func writableWarning(text string) bool {
	if !utf8.ValidString(text) {
		return false
	}
	for _, r := range text {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
