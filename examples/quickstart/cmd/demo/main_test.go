package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestDemoPrintsPatchedPodAndDeniedConfigMap(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Pod web: allowed=true",
		"quickstart.admit.dev/injected: \"true\"",
		"name: proxy",
		`warnings: ["added sidecar container \"proxy\" (registry.k8s.io/pause:3.10)"]`,
		"ConfigMap settings: allowed=false",
		`denied (422 Invalid): ConfigMap "settings" is invalid: data[Bad_Key]: Invalid value: "Bad_Key"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
