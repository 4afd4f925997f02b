package builtin

import (
	"strings"
	"testing"
)

// FuzzParseImageReference checks, for any string, that parsing never panics and that what it
// accepts behaves: the canonical form reads back the same, and mirroring keeps the repository,
// tag and digest, yields a valid reference, and is idempotent.
func FuzzParseImageReference(f *testing.F) {
	for _, seed := range []string{
		"nginx", "nginx:1.27", "library/nginx", "user/app:tag", "docker.io/nginx", "index.docker.io/library/nginx",
		"quay.io/prometheus/node-exporter:v1.8.0", "localhost:5000/app", "[::1]:5000/app:v1", "MyRegistry/app",
		"nginx@" + sha256Digest, "nginx:1.27@" + sha256Digest, "ghcr.io/org/app@" + sha512Digest,
		"mirror.local/hub/library/nginx", "a/b__c/d---e", "", ":", "@", "nginx:", "/x", "x//y", "localhost:5000",
	} {
		f.Add(seed)
	}
	spec := MirrorSpec{Mirrors: []Mirror{
		{Registry: "docker.io", Mirror: "mirror.local/hub"},
		{Registry: "localhost:5000", Mirror: "mirror.local/dev"},
		{Registry: "Quay.io", Mirror: "[::1]:8443"},
	}}
	spec.Default()
	if errs := spec.Validate(nil); len(errs) > 0 {
		f.Fatalf("fuzz mirror spec: %v", errs.ToAggregate())
	}
	f.Fuzz(func(t *testing.T, image string) {
		ref, err := ParseImageReference(image)
		rewritten, changed, rewriteErr := spec.Rewrite(image)
		if err != nil {
			if rewriteErr == nil || changed || rewritten != image {
				t.Fatalf("Rewrite(%q) = %q, %v, %v for an invalid image; want it unchanged with an error", image, rewritten, changed, rewriteErr)
			}
			return
		}
		if ref.Registry == "" || ref.Repository == "" {
			t.Fatalf("ParseImageReference(%q) = %+v: registry and repository must be set", image, ref)
		}
		again, err := ParseImageReference(ref.String())
		if err != nil || again != ref {
			t.Fatalf("%q parsed as %+v, whose String() %q reads back as %+v, %v", image, ref, ref.String(), again, err)
		}
		if rewriteErr != nil {
			if !strings.Contains(rewriteErr.Error(), "characters long") || changed || rewritten != image {
				t.Fatalf("Rewrite(%q) = %q, %v, %v for a valid image", image, rewritten, changed, rewriteErr)
			}
			return
		}
		if !changed {
			if rewritten != image {
				t.Fatalf("Rewrite(%q) changed the image to %q without saying so", image, rewritten)
			}
			return
		}
		mirrored, err := ParseImageReference(rewritten)
		if err != nil {
			t.Fatalf("Rewrite(%q) = %q, which does not parse: %v", image, rewritten, err)
		}
		if !strings.HasSuffix(mirrored.Repository, ref.Repository) || mirrored.Tag != ref.Tag || mirrored.Digest != ref.Digest {
			t.Fatalf("Rewrite(%q) = %q lost part of %+v: %+v", image, rewritten, ref, mirrored)
		}
		if twice, changedAgain, err := spec.Rewrite(rewritten); err != nil || changedAgain || twice != rewritten {
			t.Fatalf("Rewrite(%q) = %q, %v, %v: not idempotent", rewritten, twice, changedAgain, err)
		}
	})
}
