package convertmeta

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Merge keeps of the converted metadata what kube-apiserver keeps of a conversion
// webhook's answer: an empty map is kept, an absent or null one removes the original's.
func TestMergeAsKubeAPIServer(t *testing.T) {
	const original = `{"name":"b","labels":{"app":"shop"},"annotations":{"note":"fragile"}}`
	tests := []struct {
		name, original, converted, want, wantErr string
	}{
		{name: "empty maps are kept", original: original, converted: `{"labels":{},"annotations":{}}`, want: `{"name":"b","labels":{},"annotations":{}}`},
		{name: "null maps are removed", original: original, converted: `{"labels":null,"annotations":null}`, want: `{"name":"b"}`},
		{name: "absent maps are removed", original: original, converted: `{"name":"other"}`, want: `{"name":"b"}`},
		{name: "no converted metadata removes them", original: original, want: `{"name":"b"}`},
		{name: "no metadata at all stays none", converted: `{"creationTimestamp":null}`},
		{name: "a value not a string is refused", original: original, converted: `{"labels":{"app":1}}`,
			wantErr: "the converted metadata.labels: [app] must be a string, but is float64"},
		{name: "a null value is refused", original: original, converted: `{"annotations":{"note":null}}`,
			wantErr: "the converted metadata.annotations: [note] must be a string, but is <nil>"},
		{name: "labels not an object are refused", original: original, converted: `{"labels":["app"]}`,
			wantErr: "the converted metadata.labels: not a JSON object"},
		{name: "changed invalid labels are refused with kube-apiserver's words", original: original, converted: `{"labels":{"app":"a b"}}`,
			wantErr: `invalid metadata, which kube-apiserver refuses: metadata.labels: Invalid value: "a b": a valid label must be`},
		{name: "changed invalid annotations are refused with kube-apiserver's words", original: original, converted: `{"annotations":{"a/b/c":"x"}}`,
			wantErr: `invalid metadata, which kube-apiserver refuses: metadata.annotation: Invalid value: "a/b/c": a valid label key must consist of`},
		{name: "unchanged invalid labels are not checked", original: `{"labels":{"app":"a b"}}`, converted: `{"labels":{"app":"a b"}}`, want: `{"labels":{"app":"a b"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Merge(json.RawMessage(tt.original), json.RawMessage(tt.converted))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if got != nil {
					t.Fatalf("metadata %s, want none", got)
				}
				return
			}
			if diff := cmp.Diff(decode(t, tt.want), decode(t, string(got))); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
		})
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}
