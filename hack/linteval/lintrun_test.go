package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFindings(t *testing.T) {
	b07 := Finding{Rule: "B07", Name: "single-replica", Severity: "warning", Kind: "MutatingWebhookConfiguration",
		Configuration: "hooks", Webhook: "a.example.com", Field: "webhooks[0]", File: "x.yaml", Line: 3, Message: "m", Hint: "h"}
	tests := []struct {
		name string
		out  string
		want []Finding
	}{
		{name: "nothing (bad input)", out: "", want: nil},
		{name: "a report", out: `{"threshold":"info","findings":[{"rule":"B07","name":"single-replica","severity":"warning",
			"kind":"MutatingWebhookConfiguration","configuration":"hooks","webhook":"a.example.com","field":"webhooks[0]",
			"file":"x.yaml","line":3,"message":"m","hint":"h"}],"summary":{"warnings":1}}`, want: []Finding{b07}},
		{name: "an array", out: `[{"rule":"B07","configuration":"hooks"}]`, want: []Finding{{Rule: "B07", Configuration: "hooks"}}},
		{name: "suppressed findings are dropped", out: `{"findings":[{"rule":"B07","suppressed":"annotation"},{"rule":"D01"}]}`,
			want: []Finding{{Rule: "D01"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFindings([]byte(tt.out))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := parseFindings([]byte("{not json")); err == nil {
		t.Error("parseFindings accepted invalid JSON")
	}
}

func TestStderrNotes(t *testing.T) {
	got := stderrNotes(exitBadInput, "admit lint: x.yaml: bad\n\n  second  \n")
	want := []string{"admit lint exited 2 (bad input)", "admit lint: x.yaml: bad", "second"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if got := stderrNotes(exitClean, ""); got != nil {
		t.Errorf("notes of an empty stderr: %q", got)
	}
}
