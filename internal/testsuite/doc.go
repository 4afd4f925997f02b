// Package testsuite reads the declarative test files of `admit test`: which webhook
// configurations and policies to run, how to reach (or start) the webhook servers, and cases — an
// object (with its old object, operation, user, dry run) and what admission must decide about it.
// It checks a case's expectations against an admission's result and rewrites a file's
// expectations from results (--update), keeping the rest of the file as written.
//
// A file looks like this (paths are relative to the file):
//
//	apiVersion: admit.dev/v1alpha1
//	kind: TestSuite
//	name: image mirrors
//	webhooks: [webhooks.yaml]
//	resolve: ["admit-system/admit=127.0.0.1:$(PORT)"]
//	server:
//	  command: ["$(ADMIT)", "serve", "--addr", "127.0.0.1:$(PORT)", "--cert-dir", "$(CERT_DIR)"]
//	  env: {ADMIT_IMAGE_MIRRORS: docker.io=mirror.local/hub}
//	  ready: https://127.0.0.1:$(PORT)/readyz
//	cases:
//	- name: a Pod's image is mirrored
//	  object: pod.yaml
//	  expect:
//	    allowed: true
//	    fields:
//	      spec.containers[0].image: mirror.local/hub/library/nginx:1.27
package testsuite
