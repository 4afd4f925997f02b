// Package image builds admit's container image without Docker: the static binary as the only
// layer, run as a non-root user, written as an OCI image layout and as a tarball that `docker
// load`, `kind load image-archive` and `crane push` read. `make image` runs it (hack/image).
//
// The image has no shell, no package manager and no CA certificates: admit serves TLS with its
// own certificates and calls nothing on the internet (admit dev and review run outside images).
// An SBOM is left out: the binary's module list (`go version -m /admit`) is inside it already.
//
//	image.go  Build: the static binary as one layer with its configuration, written as an OCI layout
//	          and a tarball
package image
