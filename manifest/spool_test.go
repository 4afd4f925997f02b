//go:build unix

package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Spool copies a named pipe (as "-f <(kustomize build)" gives) and standard input to temporary
// files, so that the inputs read twice give the same objects, named as given; a regular file is
// read where it is; remove deletes the copies.
func TestSpoolPipes(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "build.yaml")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	regular := filepath.Join(dir, "regular.yaml")
	writeFiles(t, dir, map[string]string{"regular.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: r}\n"})
	written := make(chan error, 1)
	go func() {
		// Blocks until Spool opens the pipe to read it.
		f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			written <- err
			return
		}
		_, err = f.WriteString("apiVersion: v1\nkind: Namespace\nmetadata: {name: p}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: q, namespace: p}\n")
		written <- errors.Join(err, f.Close())
	}()

	in, err := Expand([]string{pipe, regular, "-"}, Options{Stdin: strings.NewReader("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")})
	if err != nil {
		t.Fatal(err)
	}
	remove, err := in.Spool()
	if err != nil {
		t.Fatal(err)
	}
	if err := <-written; err != nil {
		t.Fatalf("writing the pipe: %v", err)
	}
	copies := []string{in.List[0].Files[0].Path, in.List[2].Files[0].Path}
	for _, f := range copies {
		if info, err := os.Stat(f); err != nil || !info.Mode().IsRegular() || f == pipe {
			t.Errorf("the copy %s: %v", f, err)
		}
	}
	if in.List[1].Files[0].Path != regular {
		t.Errorf("the regular file read from %s, want %s", in.List[1].Files[0].Path, regular)
	}

	want := []string{pipe + ":1 Namespace p", pipe + ":5 ConfigMap q", regular + ":1 ConfigMap r", "<stdin>:1 Secret s"}
	for reading := range 2 {
		var got []string
		err := in.Each(func(o Object) error {
			got = append(got, o.Source.String()+" "+o.Object.GetKind()+" "+o.Object.GetName())
			return nil
		})
		if err != nil {
			t.Fatalf("reading %d: %v", reading+1, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("reading %d (-want +got):\n%s", reading+1, diff)
		}
	}

	remove()
	for _, f := range copies {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after remove, the copy %s: %v", f, err)
		}
	}
	if _, err := os.Stat(regular); err != nil {
		t.Errorf("after remove, the regular file: %v", err)
	}
}

// Standard input that cannot be read is Spool's error; remove is still safe to call.
func TestSpoolWithoutStdin(t *testing.T) {
	in, err := Expand([]string{"-"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	remove, err := in.Spool()
	if err == nil || err.Error() != "standard input is read once; it cannot be read again" {
		t.Errorf("Spool: %v", err)
	}
	remove()
}
