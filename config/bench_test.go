package config

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse parses a file of two webhook configurations, a Deployment and a Service.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "webhooks.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("webhooks.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateValidating(b *testing.B) {
	c := validValidating()
	for b.Loop() {
		if errs := ValidateValidating(c); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
