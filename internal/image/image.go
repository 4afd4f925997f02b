package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// nonRoot is the user the image runs as: distroless's "nonroot", which Pod security "restricted"
// and deploy/'s runAsNonRoot accept.
const nonRoot = "65532:65532"

// Options say what to build.
type Options struct {
	// Binary is the static admit binary (CGO_ENABLED=0, GOOS=linux) to put in the image as /admit.
	Binary string
	// Out receives layout/ (the OCI image layout) and admit.tar (a docker-format tarball).
	Out string
	// Ref is the image's name and tag, e.g. ghcr.io/admitkit/admit:v1.2.3.
	Ref string
	// Version and Revision are the image's labels; Arch the binary's architecture (amd64, arm64).
	Version, Revision, Arch string
}

// Build writes the image for opts and returns its reference with digest. The image is
// reproducible: the same binary gives the same digest (fixed file times, no build date).
func Build(opts Options) (string, error) {
	tag, err := name.NewTag(opts.Ref)
	if err != nil {
		return "", fmt.Errorf("the image reference %q: %w", opts.Ref, err)
	}
	img, err := newImage(opts)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return "", err
	}
	dir := filepath.Join(opts.Out, "layout")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	index, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", fmt.Errorf("writing the OCI layout: %w", err)
	}
	if err := index.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": tag.String()})); err != nil {
		return "", fmt.Errorf("writing the OCI layout: %w", err)
	}
	if err := tarball.WriteToFile(filepath.Join(opts.Out, "admit.tar"), tag, img); err != nil {
		return "", fmt.Errorf("writing the tarball: %w", err)
	}
	digest, err := img.Digest()
	if err != nil {
		return "", err
	}
	return tag.String() + "@" + digest.String(), nil
}

// newImage is the binary as /admit in one layer, with the configuration that runs it.
func newImage(opts Options) (v1.Image, error) {
	binary, err := os.ReadFile(opts.Binary)
	if err != nil {
		return nil, fmt.Errorf("the admit binary: %w (build it with CGO_ENABLED=0 GOOS=linux, as make image does)", err)
	}
	var layerTar bytes.Buffer
	tw := tar.NewWriter(&layerTar)
	epoch := time.Unix(0, 0).UTC()
	if err := tw.WriteHeader(&tar.Header{Name: "admit", Mode: 0o755, Size: int64(len(binary)), ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(binary); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := layerTar.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("the layer: %w", err)
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{
		"org.opencontainers.image.title":   "admit",
		"org.opencontainers.image.source":  "https://github.com/admitkit/admit",
		"org.opencontainers.image.version": opts.Version,
	}
	if opts.Revision != "" {
		labels["org.opencontainers.image.revision"] = opts.Revision
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", opts.Arch
	cfg.Created = v1.Time{Time: epoch}
	cfg.Config = v1.Config{Entrypoint: []string{"/admit"}, Cmd: []string{"serve"}, User: nonRoot, WorkingDir: "/", Labels: labels}
	return mutate.ConfigFile(img, cfg)
}
