package report

import (
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	page := "# Title\nintro\n<!-- admitbench:begin a -->\nold a\n<!-- admitbench:end a -->\nmiddle\n<!-- admitbench:begin b -->\n<!-- admitbench:end b -->\nend\n"
	for _, tc := range []struct {
		name     string
		page     string
		sections map[string]string
		want     string
		wantErr  string
	}{
		{
			name: "replaces only between markers", page: page,
			sections: map[string]string{"a": "new a\n\n", "b": "  new b"},
			want:     "# Title\nintro\n<!-- admitbench:begin a -->\nnew a\n<!-- admitbench:end a -->\nmiddle\n<!-- admitbench:begin b -->\nnew b\n<!-- admitbench:end b -->\nend\n",
		},
		{name: "no sections", page: page, sections: nil, want: page},
		{name: "missing", page: page, sections: map[string]string{"c": "x"}, wantErr: `section "c": found 0`},
		{name: "repeated", page: page + "<!-- admitbench:begin a -->\n", sections: map[string]string{"a": "x"}, wantErr: `section "a": found 2`},
		{name: "reversed", page: "<!-- admitbench:end a -->\n<!-- admitbench:begin a -->\n", sections: map[string]string{"a": "x"}, wantErr: "end marker comes before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Splice([]byte(tc.page), tc.sections)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
