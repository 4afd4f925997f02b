//go:build e2e

package e2e

import (
	"archive/tar"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/admitkit/admit/internal/image"
)

// The image make image builds, read back from both outputs: its configuration, one layer with the
// binary, and the binary inside is static and runs. Two builds of one binary are one image.
func TestImage(t *testing.T) {
	binary := admitBinary(t)
	dir := t.TempDir()
	opts := image.Options{Binary: binary, Out: filepath.Join(dir, "image"), Ref: "ghcr.io/admitkit/admit:v9.8.7", Version: "v9.8.7", Revision: "abc123", Arch: runtime.GOARCH}
	ref, err := image.Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	index, err := layout.ImageIndexFromPath(filepath.Join(opts.Out, "layout"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := index.IndexManifest()
	if err != nil || len(manifest.Manifests) != 1 || manifest.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "ghcr.io/admitkit/admit:v9.8.7" {
		t.Fatalf("the layout's index: %+v, %v", manifest, err)
	}
	if want := "ghcr.io/admitkit/admit:v9.8.7@" + manifest.Manifests[0].Digest.String(); ref != want {
		t.Errorf("Build returned %s, the layout holds %s", ref, want)
	}
	fromLayout, err := index.Image(manifest.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	fromTarball, err := tarball.ImageFromPath(filepath.Join(opts.Out, "admit.tar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The tarball is docker's format (another manifest) around the same configuration.
	layoutConfig, _ := fromLayout.ConfigName()
	if tarConfig, _ := fromTarball.ConfigName(); layoutConfig != tarConfig {
		t.Errorf("the layout's image has configuration %s, the tarball's %s", layoutConfig, tarConfig)
	}
	cfg, err := fromLayout.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := v1.Config{Entrypoint: []string{"/admit"}, Cmd: []string{"serve"}, User: "65532:65532", WorkingDir: "/", Labels: map[string]string{
		"org.opencontainers.image.title": "admit", "org.opencontainers.image.source": "https://github.com/admitkit/admit",
		"org.opencontainers.image.version": "v9.8.7", "org.opencontainers.image.revision": "abc123",
	}}
	if diff := gocmp.Diff(want, cfg.Config); diff != "" {
		t.Errorf("image config (-want +got):\n%s", diff)
	}
	if cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s", cfg.OS, cfg.Architecture)
	}
	layers, err := fromLayout.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers (%v), want the binary's only", len(layers), err)
	}

	extracted := filepath.Join(dir, "admit")
	if err := extractFile(layers[0], "admit", extracted); err != nil {
		t.Fatal(err)
	}
	exe, err := elf.Open(extracted)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range exe.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the image's admit is dynamically linked: the image has no libc")
		}
	}
	exe.Close()
	inside, err := exec.Command(extracted, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("the image's admit does not run: %v", err)
	}
	outside, err := exec.Command(binary, "version", "-o", "json").Output()
	if err != nil || string(inside) != string(outside) {
		t.Errorf("admit version in the image %s, of the binary given %s (%v)", inside, outside, err)
	}
	// make builds from a git checkout: its binary says which, not "devel".
	if exec.Command("git", "rev-parse", "--git-dir").Run() == nil {
		var v struct{ Version string }
		if err := json.Unmarshal(outside, &v); err != nil || v.Version == "" || v.Version == "devel" {
			t.Errorf("admit version of a binary make built in a git checkout: %s (%v); want the checkout's version", outside, err)
		}
	}

	opts.Out = filepath.Join(dir, "again")
	if again, err := image.Build(opts); err != nil || again != ref {
		t.Errorf("two builds of one binary: %s and %s (%v); want one digest", ref, again, err)
	}
}

// extractFile writes the layer's file name to path, executable.
func extractFile(layer v1.Layer, name, path string) error {
	rc, err := layer.Uncompressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("no " + name + " in the layer")
		}
		if err != nil {
			return err
		}
		if h.Name != name {
			continue
		}
		if h.Mode&0o111 == 0 || h.Uid != 0 {
			return errors.New(name + " is not an executable owned by root in the layer")
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		return os.WriteFile(path, data, 0o755)
	}
}
