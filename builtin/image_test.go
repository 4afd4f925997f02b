package builtin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	sha256Digest = "sha256:5be1ecc7935f1dd85635d4feedaf660594030253cc97c9e9ca3819ffeac36b65"
	sha512Digest = "sha512:a4abd4448c49562d828115d13a1fccea927f52b4d5459297f8b43e42da89238bc13626e43dcb38ddb082488927ec904fb42057443983e88585179d50551afe62"
)

func TestParseImageReference(t *testing.T) {
	tests := []struct {
		image string
		want  ImageReference
	}{
		{"nginx", ImageReference{Registry: "docker.io", Repository: "library/nginx"}},
		{"nginx:1.27", ImageReference{Registry: "docker.io", Repository: "library/nginx", Tag: "1.27"}},
		{"library/nginx", ImageReference{Registry: "docker.io", Repository: "library/nginx"}},
		{"user/app:tag", ImageReference{Registry: "docker.io", Repository: "user/app", Tag: "tag"}},
		{"user/team/app", ImageReference{Registry: "docker.io", Repository: "user/team/app"}},
		{"docker.io/nginx", ImageReference{Registry: "docker.io", Repository: "library/nginx"}},
		{"docker.io/library/nginx:latest", ImageReference{Registry: "docker.io", Repository: "library/nginx", Tag: "latest"}},
		{"index.docker.io/nginx", ImageReference{Registry: "docker.io", Repository: "library/nginx"}},
		{"registry-1.docker.io/user/app", ImageReference{Registry: "docker.io", Repository: "user/app"}},
		{"Docker.IO/nginx", ImageReference{Registry: "docker.io", Repository: "library/nginx"}},
		{"quay.io/prometheus/node-exporter:v1.8.0", ImageReference{Registry: "quay.io", Repository: "prometheus/node-exporter", Tag: "v1.8.0"}},
		{"registry.k8s.io/pause:3.10", ImageReference{Registry: "registry.k8s.io", Repository: "pause", Tag: "3.10"}},
		{"nginx@" + sha256Digest, ImageReference{Registry: "docker.io", Repository: "library/nginx", Digest: sha256Digest}},
		{"nginx:1.27@" + sha256Digest, ImageReference{Registry: "docker.io", Repository: "library/nginx", Tag: "1.27", Digest: sha256Digest}},
		{"ghcr.io/org/app@" + sha512Digest, ImageReference{Registry: "ghcr.io", Repository: "org/app", Digest: sha512Digest}},
		{"localhost/app", ImageReference{Registry: "localhost", Repository: "app"}},
		{"localhost:5000/app:dev", ImageReference{Registry: "localhost:5000", Repository: "app", Tag: "dev"}},
		{"registry.example.com:5000/team/app", ImageReference{Registry: "registry.example.com:5000", Repository: "team/app"}},
		{"registry.example.com:5000/team/app:1.0@" + sha256Digest, ImageReference{Registry: "registry.example.com:5000", Repository: "team/app", Tag: "1.0", Digest: sha256Digest}},
		{"10.0.0.1:5000/app", ImageReference{Registry: "10.0.0.1:5000", Repository: "app"}},
		{"[::1]:5000/app:v1", ImageReference{Registry: "[::1]:5000", Repository: "app", Tag: "v1"}},
		{"myhost:80/app", ImageReference{Registry: "myhost:80", Repository: "app"}},
		{"MyRegistry/app", ImageReference{Registry: "MyRegistry", Repository: "app"}},
		{"mirror.local/hub/library/nginx:1.27", ImageReference{Registry: "mirror.local", Repository: "hub/library/nginx", Tag: "1.27"}},
		{"a/b__c/d-----e/f.g_h", ImageReference{Registry: "docker.io", Repository: "a/b__c/d-----e/f.g_h"}},
		{"app:Tag_With.Dots-1", ImageReference{Registry: "docker.io", Repository: "library/app", Tag: "Tag_With.Dots-1"}},
		{"app:_x", ImageReference{Registry: "docker.io", Repository: "library/app", Tag: "_x"}},
		// A bare "localhost:5000" is Docker Hub's library/localhost at tag 5000, as runtimes read it.
		{"localhost:5000", ImageReference{Registry: "docker.io", Repository: "library/localhost", Tag: "5000"}},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			got, err := ParseImageReference(tt.image)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			again, err := ParseImageReference(got.String())
			if err != nil || again != got {
				t.Fatalf("String() = %q reads back as %+v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParseImageReferenceErrors(t *testing.T) {
	tests := []struct {
		image, want string
	}{
		{"", `invalid image reference "": it is empty`},
		{"nginx ", `invalid image reference "nginx ": it contains whitespace or a control character at offset 5`},
		{"Nginx", `invalid image reference "Nginx": repository path component "Nginx" must be lower-case letters and digits, separated by '.', '_', '__' or dashes`},
		{"user/App", `repository path component "App" must be`},
		{"nginx:", `tag "": the tag is empty`},
		{":1.0", `it has no repository`},
		{"nginx:.hidden", `tag ".hidden": a tag must not start with '.'`},
		{"nginx:1.27:extra", `repository path component "nginx:1.27" must be`},
		{"nginx:" + strings.Repeat("t", 129), `the tag is 129 characters long, more than 128`},
		{"nginx:a+b", `a tag may only hold letters, digits, '_', '.' and '-', not '+'`},
		{"nginx@", `digest "": want ALGORITHM:HEX`},
		{"nginx@sha256:abc", `a sha256 digest is 64 lower-case hex digits`},
		{"nginx@sha256:" + strings.ToUpper(sha256Digest[7:]), `a sha256 digest is 64 lower-case hex digits`},
		{"nginx@md5:d41d8cd98f00b204e9800998ecf8427e", `unsupported digest algorithm "md5"`},
		{"nginx@" + sha256Digest + "@" + sha256Digest, `digest "` + sha256Digest + "@"},
		{"quay.io/", `repository "" has an empty path component`},
		{"quay.io//app", `repository "/app" has an empty path component`},
		{"/nginx", `repository "/nginx" has an empty path component`},
		{"quay.io/app/", `repository "app/" has an empty path component`},
		{"app-/x", `repository path component "app-" must be`},
		{"a___b", `repository path component "a___b" must be`},
		{"-bad.io/app", `registry "-bad.io": host name label "-bad" must be letters and digits, with dashes only inside`},
		{"bad..io/app", `registry "bad..io": host name label "" must be`},
		{"host:port/app", `registry "host:port": port "port" must be a number`},
		{"host:/app", `registry "host:": the port is empty`},
		{"[::1/app", `registry "[::1": an IPv6 address must be closed by ']'`},
		{"[zz]:5000/app", `registry "[zz]:5000": "[zz]" is not an IPv6 address`},
		{"[::1]x/app", `registry "[::1]x": only a :port may follow an IPv6 address`},
		{"quay.io/" + strings.Repeat("a", 248), `the name quay.io/` + strings.Repeat("a", 248) + ` is 256 characters long, more than 255`},
		// Counted as a runtime counts it: fully qualified.
		{strings.Repeat("a", 240), `is 258 characters long, more than 255`},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			got, err := ParseImageReference(tt.image)
			if err == nil {
				t.Fatalf("got %+v, want an error containing %q", got, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	spec := MirrorSpec{Mirrors: []Mirror{
		{Registry: "docker.io", Mirror: "mirror.local/hub"},
		{Registry: "quay.io", Mirror: "mirror.local/quay"},
		{Registry: "registry.example.com:5000", Mirror: "mirror.local:8443"},
		{Registry: "localhost:5000", Mirror: "mirror.local/dev/local"},
	}}
	tests := []struct {
		image, want string
	}{
		{"nginx", "mirror.local/hub/library/nginx"},
		{"nginx:1.27", "mirror.local/hub/library/nginx:1.27"},
		{"library/nginx", "mirror.local/hub/library/nginx"},
		{"user/app:tag", "mirror.local/hub/user/app:tag"},
		{"docker.io/nginx", "mirror.local/hub/library/nginx"},
		{"index.docker.io/library/nginx:1.27", "mirror.local/hub/library/nginx:1.27"},
		{"registry-1.docker.io/user/app", "mirror.local/hub/user/app"},
		{"nginx@" + sha256Digest, "mirror.local/hub/library/nginx@" + sha256Digest},
		{"nginx:1.27@" + sha256Digest, "mirror.local/hub/library/nginx:1.27@" + sha256Digest},
		{"quay.io/prometheus/node-exporter:v1.8.0", "mirror.local/quay/prometheus/node-exporter:v1.8.0"},
		{"QUAY.IO/prometheus/node-exporter", "mirror.local/quay/prometheus/node-exporter"},
		{"registry.example.com:5000/team/app:1.0", "mirror.local:8443/team/app:1.0"},
		{"localhost:5000/app", "mirror.local/dev/local/app"},
		// Left alone: registries without a mirror, and images already on a mirror.
		{"registry.example.com/team/app", "registry.example.com/team/app"},
		{"registry.example.com:5001/team/app", "registry.example.com:5001/team/app"},
		{"localhost/app", "localhost/app"},
		{"ghcr.io/org/app:1", "ghcr.io/org/app:1"},
		{"mirror.local/hub/library/nginx:1.27", "mirror.local/hub/library/nginx:1.27"},
		{"mirror.local:8443/team/app:1.0", "mirror.local:8443/team/app:1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			got, changed, err := spec.Rewrite(tt.image)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || changed != (tt.want != tt.image) {
				t.Fatalf("Rewrite(%q) = %q, %v; want %q", tt.image, got, changed, tt.want)
			}
			again, changedAgain, err := spec.Rewrite(got)
			if err != nil || changedAgain || again != got {
				t.Fatalf("rewriting %q again gave %q, %v, %v: want no change", got, again, changedAgain, err)
			}
		})
	}
}

func TestRewriteErrorsLeaveTheImage(t *testing.T) {
	spec := MirrorSpec{Mirrors: []Mirror{{Registry: "docker.io", Mirror: "mirror.local/hub"}}}
	long := "team/" + strings.Repeat("a", 234) // fits on docker.io, not under mirror.local/hub
	tests := []struct{ image, wantErr string }{
		{"Nginx:latest", `invalid image reference "Nginx:latest": repository path component "Nginx" must be`},
		{long + ":v1", `cannot mirror "` + long + `:v1": the name mirror.local/hub/` + long + ` is 256 characters long, more than 255`},
	}
	for _, tt := range tests {
		got, changed, err := spec.Rewrite(tt.image)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || changed || got != tt.image {
			t.Errorf("Rewrite(%q) = %q, %v, %v; want it unchanged with an error containing %q", tt.image, got, changed, err, tt.wantErr)
		}
	}
}
