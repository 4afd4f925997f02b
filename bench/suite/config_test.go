package suite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRotated(t *testing.T) {
	items := []string{"a", "b", "c"}
	for _, tc := range []struct {
		round int
		want  []string
	}{
		{0, []string{"a", "b", "c"}},
		{1, []string{"b", "c", "a"}},
		{2, []string{"c", "a", "b"}},
		{3, []string{"a", "b", "c"}},
	} {
		if diff := cmp.Diff(tc.want, rotated(items, tc.round)); diff != "" {
			t.Errorf("round %d (-want +got):\n%s", tc.round, diff)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	valid := Smoke()
	valid.Executable = "/bin/admitbench"
	if err := valid.validate(); err != nil {
		t.Fatalf("the smoke configuration is invalid: %v", err)
	}
	full := Full()
	full.Executable = "/bin/admitbench"
	if err := full.validate(); err != nil {
		t.Fatalf("the full configuration is invalid: %v", err)
	}
	for _, tc := range []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{"no executable", func(c *Config) { c.Executable = "" }, "executable is required"},
		{"no round", func(c *Config) { c.Rounds = 0 }, "0 rounds"},
		{"no connection", func(c *Config) { c.Serving.Connections = 0 }, "at least 1"},
		{"unbounded phase", func(c *Config) { c.Serving.MaxDuration = 0 }, "bounded in time and requests"},
		{"no rate", func(c *Config) { c.Serving.Rate = 0 }, "positive rate"},
		{"no admission", func(c *Config) { c.Dispatch.Admissions = 0 }, "bounded in admissions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid
			tc.edit(&c)
			if err := c.validate(); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
