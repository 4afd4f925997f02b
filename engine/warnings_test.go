package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestWarningBudget(t *testing.T) {
	var r warningRecorder
	long := strings.Repeat("x", 1000)
	for i := 0; i < 5; i++ {
		r.add(fmt.Sprintf("%d%s", i, long))
	}
	r.add("")
	got := r.list()
	if len(got) != 5 {
		t.Fatalf("%d warnings, want 5", len(got))
	}
	for _, w := range got {
		if n := len([]rune(w)); n != 256 {
			t.Fatalf("warning of %d runes after the budget was passed, want 256", n)
		}
	}
	for i := 0; i < 20; i++ {
		r.add(fmt.Sprintf("more %d %s", i, long))
	}
	total := 0
	for _, w := range r.list() {
		total += len([]rune(w))
	}
	if total > warningBudgetRunes+256 {
		t.Fatalf("%d runes of warnings, want the budget to hold", total)
	}
}
