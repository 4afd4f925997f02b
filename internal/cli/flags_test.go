package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestOnceStringRefusesRepetition(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string
		wantErr string
	}{
		{name: "absent", args: nil, want: "default"},
		{name: "once", args: []string{"--kubeconfig", "a"}, want: "a"},
		{name: "twice", args: []string{"--kubeconfig", "a", "--kubeconfig=b"}, wantErr: `invalid argument "b" for "--kubeconfig" flag: given twice ("a", then "b"): it takes one value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := pflag.NewFlagSet("test", pflag.ContinueOnError)
			var got string
			onceStringVar(f, &got, "kubeconfig", "default", "a kubeconfig")
			err := f.Parse(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("value %q, want %q", got, tt.want)
			}
		})
	}
}

// Every flag that names one file refuses a second value through the CLI: pflag would keep the
// last one silently, and the first file would be dropped without a word.
func TestSingleFileFlagsRefuseRepetition(t *testing.T) {
	tests := []struct {
		args []string
		flag string
	}{
		{args: []string{"lint", "--kubeconfig", "a", "--kubeconfig", "b"}, flag: "--kubeconfig"},
		{args: []string{"lint", "--stdin-filename", "a", "--stdin-filename", "b", "-"}, flag: "--stdin-filename"},
		{args: []string{"test", "--junit", "a.xml", "--junit", "b.xml"}, flag: "--junit"},
		{args: []string{"serve", "--client-ca", "a", "--client-ca", "b"}, flag: "--client-ca"},
		{args: []string{"serve", "--cert-dir", "a", "--cert-dir", "b"}, flag: "--cert-dir"},
		{args: []string{"serve", "--kubeconfig", "a", "--kubeconfig", "b"}, flag: "--kubeconfig"},
		{args: []string{"certs", "create", "--host", "h", "--out", "a", "--out", "b"}, flag: "--out"},
		{args: []string{"certs", "create", "--host", "h", "--out", "o", "--ca-cert", "a", "--ca-cert", "b"}, flag: "--ca-cert"},
		{args: []string{"certs", "create", "--host", "h", "--out", "o", "--ca-key", "a", "--ca-key", "b"}, flag: "--ca-key"},
		{args: []string{"certs", "create", "--host", "h", "--out", "o", "--ca-key-out", "a", "--ca-key-out", "b"}, flag: "--ca-key-out"},
		{args: []string{"certs", "inject", "--ca-file", "a", "--ca-file", "b", "x.yaml"}, flag: "--ca-file"},
		{args: []string{"dev", "--kubeconfig", "a", "--kubeconfig", "b"}, flag: "--kubeconfig"},
		{args: []string{"dev", "--cert-dir", "a", "--cert-dir", "b"}, flag: "--cert-dir"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:len(tt.args)-1], " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(context.Background(), tt.args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			want := "for \"" + tt.flag + "\" flag: given twice"
			if code != ExitBadInput || !strings.Contains(errOut.String(), want) || out.Len() > 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out.String(), errOut.String(), ExitBadInput, want)
			}
		})
	}
}
