package builtin

import (
	"errors"
	"fmt"
	"strings"
)

// DockerHub is the registry of unqualified image references: "nginx" means
// "docker.io/library/nginx".
const DockerHub = "docker.io"

// maxNameLength bounds the fully qualified name of a reference (registry, "/" and repository), as
// container runtimes do.
const maxNameLength = 255

// checkNameLength refuses names longer than runtimes accept, counted fully qualified: "nginx" is
// "docker.io/library/nginx" to a runtime.
func checkNameLength(registry, repository string) error {
	if n := len(registry) + 1 + len(repository); n > maxNameLength {
		return fmt.Errorf("the name %s/%s is %d characters long, more than %d", registry, repository, n, maxNameLength)
	}
	return nil
}

// ImageReference is a parsed container image reference, fully qualified: [REGISTRY/]REPOSITORY[:TAG][@DIGEST]
// becomes its four parts, with Docker Hub's implicit registry and "library/" namespace made explicit.
type ImageReference struct {
	// Registry is the host, with an optional port, e.g. "quay.io" or "localhost:5000". Docker Hub,
	// under any of its names, is DockerHub.
	Registry string
	// Repository is the path inside the registry, e.g. "library/nginx" or "prometheus/node-exporter".
	Repository string
	// Tag is the tag without its ":", or "" when there is none. A reference with neither tag nor
	// digest means the "latest" tag to a container runtime; it is not added here.
	Tag string
	// Digest is the content digest without its "@", e.g. "sha256:…", or "".
	Digest string
}

// String returns the reference fully qualified, e.g. "docker.io/library/nginx:1.27".
func (r ImageReference) String() string {
	var b strings.Builder
	b.Grow(len(r.Registry) + len(r.Repository) + len(r.Tag) + len(r.Digest) + 3)
	b.WriteString(r.Registry)
	b.WriteByte('/')
	b.WriteString(r.Repository)
	b.WriteString(r.suffix())
	return b.String()
}

// suffix is the ":tag" and "@digest" part, as they follow the repository.
func (r ImageReference) suffix() string {
	s := ""
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// ParseImageReference parses an image reference as container runtimes read it:
//
//   - The first path component names a registry only when it contains a "." or a ":", is
//     "localhost", or has an upper-case letter (repositories are lower case, host names are not
//     bound to be); otherwise the image is on Docker Hub: "nginx", "library/nginx" and
//     "user/app:tag" are all docker.io images.
//   - A Docker Hub repository with a single component is in the "library" namespace.
//   - index.docker.io and registry-1.docker.io are Docker Hub.
//   - A tag follows the last ":" that is after the last "/"; a digest follows an "@".
//
// The result is checked against the reference grammar (lower-case repository components
// separated by ".", "_", "__" or dashes; tags of at most 128 word characters, dots and dashes,
// not starting with either; sha256, sha384 or sha512 digests in lower-case hex), so a reference a
// runtime would refuse is an error here too.
func ParseImageReference(image string) (ImageReference, error) {
	ref, err := parseImageReference(image)
	if err != nil {
		return ImageReference{}, fmt.Errorf("invalid image reference %q: %w", image, err)
	}
	return ref, nil
}

func parseImageReference(image string) (ImageReference, error) {
	var ref ImageReference
	if image == "" {
		return ref, errors.New("it is empty")
	}
	if i := strings.IndexFunc(image, isSpaceOrControl); i >= 0 {
		return ref, fmt.Errorf("it contains whitespace or a control character at offset %d", i)
	}
	name := image
	if i := strings.IndexByte(name, '@'); i >= 0 {
		ref.Digest, name = name[i+1:], name[:i]
		if err := checkDigest(ref.Digest); err != nil {
			return ref, fmt.Errorf("digest %q: %w", ref.Digest, err)
		}
	}
	// A ":" followed by a "/" belongs to the registry's port, not to a tag.
	if i := strings.LastIndexByte(name, ':'); i >= 0 && !strings.Contains(name[i:], "/") {
		ref.Tag, name = name[i+1:], name[:i]
		if err := checkTag(ref.Tag); err != nil {
			return ref, fmt.Errorf("tag %q: %w", ref.Tag, err)
		}
	}
	if name == "" {
		return ref, errors.New("it has no repository")
	}
	ref.Registry, ref.Repository = DockerHub, name
	if i := strings.IndexByte(name, '/'); i >= 0 && looksLikeRegistry(name[:i]) {
		ref.Registry, ref.Repository = name[:i], name[i+1:]
		if err := checkRegistryHost(ref.Registry); err != nil {
			return ref, fmt.Errorf("registry %q: %w", ref.Registry, err)
		}
		ref.Registry = canonicalRegistry(ref.Registry)
	}
	if err := checkRepository(ref.Repository); err != nil {
		return ref, err
	}
	if ref.Registry == DockerHub && !strings.Contains(ref.Repository, "/") {
		ref.Repository = "library/" + ref.Repository
	}
	if err := checkNameLength(ref.Registry, ref.Repository); err != nil {
		return ref, err
	}
	return ref, nil
}

// looksLikeRegistry reports whether the first component of a name is a registry host rather than
// the first component of a Docker Hub repository.
func looksLikeRegistry(component string) bool {
	return strings.ContainsAny(component, ".:") || component == "localhost" || strings.ToLower(component) != component
}

// canonicalRegistry returns the name a registry host is matched by: Docker Hub under any of its
// names becomes DockerHub (container runtimes pull from index.docker.io and registry-1.docker.io
// as from docker.io, so a mirror of docker.io must catch them too); other hosts are returned as
// written.
func canonicalRegistry(host string) string {
	switch strings.ToLower(host) {
	case DockerHub, "index.docker.io", "registry-1.docker.io":
		return DockerHub
	}
	return host
}

// registryKey is how registries are compared: host names are case-insensitive.
func registryKey(host string) string { return strings.ToLower(canonicalRegistry(host)) }

// checkRegistryHost accepts HOST[:PORT], HOST being dot-separated DNS labels (letters, digits and
// inner dashes) or a bracketed IPv6 address, PORT being decimal digits.
func checkRegistryHost(hostPort string) error {
	host, port := hostPort, ""
	if strings.HasPrefix(hostPort, "[") {
		end := strings.IndexByte(hostPort, ']')
		if end < 0 {
			return errors.New("an IPv6 address must be closed by ']'")
		}
		host, port = hostPort[:end+1], hostPort[end+1:]
		if inner := host[1:end]; inner == "" || strings.Trim(inner, "0123456789abcdefABCDEF:") != "" {
			return fmt.Errorf("%q is not an IPv6 address", host)
		}
		if port != "" && port[0] != ':' {
			return errors.New("only a :port may follow an IPv6 address")
		}
		port = strings.TrimPrefix(port, ":")
		if port == "" && strings.HasSuffix(hostPort, ":") {
			return errors.New("the port is empty")
		}
	} else if i := strings.IndexByte(hostPort, ':'); i >= 0 {
		host, port = hostPort[:i], hostPort[i+1:]
		if port == "" {
			return errors.New("the port is empty")
		}
	}
	if port != "" && strings.Trim(port, "0123456789") != "" {
		return fmt.Errorf("port %q must be a number", port)
	}
	if strings.HasPrefix(host, "[") {
		return nil
	}
	if host == "" {
		return errors.New("the host name is empty")
	}
	for _, label := range strings.Split(host, ".") {
		if !isHostLabel(label) {
			return fmt.Errorf("host name label %q must be letters and digits, with dashes only inside", label)
		}
	}
	return nil
}

func isHostLabel(label string) bool {
	if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		if c := label[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// checkRepository checks every "/"-separated component of a repository path.
func checkRepository(repository string) error {
	for _, component := range strings.Split(repository, "/") {
		if !isPathComponent(component) {
			if component == "" {
				return fmt.Errorf("repository %q has an empty path component", repository)
			}
			return fmt.Errorf("repository path component %q must be lower-case letters and digits, separated by '.', '_', '__' or dashes", component)
		}
	}
	return nil
}

// isPathComponent reports whether c is runs of [a-z0-9] joined by ".", "_", "__" or any number
// of "-".
func isPathComponent(c string) bool {
	i := 0
	for {
		start := i
		for i < len(c) && (isDigit(c[i]) || 'a' <= c[i] && c[i] <= 'z') {
			i++
		}
		if i == start {
			return false // empty component, or a separator not followed by a letter or digit
		}
		if i == len(c) {
			return true
		}
		switch c[i] {
		case '.':
			i++
		case '_':
			i++
			if i < len(c) && c[i] == '_' {
				i++
			}
		case '-':
			for i < len(c) && c[i] == '-' {
				i++
			}
		default:
			return false
		}
	}
}

// checkTag accepts 1 to 128 letters, digits, "_", "." and "-", not starting with "." or "-".
func checkTag(tag string) error {
	switch {
	case tag == "":
		return errors.New("the tag is empty")
	case len(tag) > 128:
		return fmt.Errorf("the tag is %d characters long, more than 128", len(tag))
	case tag[0] == '.' || tag[0] == '-':
		return fmt.Errorf("a tag must not start with %q", tag[0])
	}
	for i := 0; i < len(tag); i++ {
		if c := tag[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return fmt.Errorf("a tag may only hold letters, digits, '_', '.' and '-', not %q", c)
		}
	}
	return nil
}

// digestHexLength is the length of the hex encoding of a digest algorithm runtimes accept, or 0.
func digestHexLength(algorithm string) int {
	switch algorithm {
	case "sha256":
		return 64
	case "sha384":
		return 96
	case "sha512":
		return 128
	}
	return 0
}

// checkDigest accepts ALGORITHM:HEX for a known algorithm, in lower-case hex of the right length.
func checkDigest(digest string) error {
	algorithm, encoded, ok := strings.Cut(digest, ":")
	if !ok {
		return errors.New("want ALGORITHM:HEX, e.g. sha256:<64 hex digits>")
	}
	want := digestHexLength(algorithm)
	if want == 0 {
		return fmt.Errorf("unsupported digest algorithm %q (want sha256, sha384 or sha512)", algorithm)
	}
	if len(encoded) != want || strings.Trim(encoded, "0123456789abcdef") != "" {
		return fmt.Errorf("a %s digest is %d lower-case hex digits", algorithm, want)
	}
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }
