package lint

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestRealWorld keeps lint's precision on real-world manifests a tested property. Each
// testdata/realworld/<shape>/ directory holds manifests written for these tests in the shape of
// one real project's published webhook manifests: the same objects, fields and patterns (how the
// caBundle is filled, how replicas and disruption budgets are set, which selectors scope the
// webhooks), under names of their own. The full text report, at info, is compared with
// testdata/realworld/<shape>.golden; go test ./lint -run TestRealWorld -update rewrites the
// goldens, which must then be read against the why of their shape: a finding the shape should
// not draw is a false positive to fix in lint, not in the golden.
func TestRealWorld(t *testing.T) {
	for _, shape := range []struct {
		dir string
		why string
	}{
		{"certgen-job", "ingress-nginx deploy.yaml: caBundle left empty for a kube-webhook-certgen patch Job whose ClusterRole may get/update validatingwebhookconfigurations, so no E05; B07 and B08 warnings as on the real manifest; D01 info only, as Ingresses are written by people, not on the control plane's paths"},
		{"self-rotating-controller", "Gatekeeper (CloudNativePG for RBAC without resourceNames): the server's own ServiceAccount may patch both configurations, so no E05; wildcard rules with matchPolicy Exact and apiVersions [*] draw no C03; failing open within 1 and 3 s on leases is B05 info only; B06/C01 warnings and C02/C04 infos for the wildcards, as on the real manifest"},
		{"controller-gen-base", "Kueue/Cluster API config/webhook/manifests.yaml alone: D01 info for every webhook (own custom resources, timeout unset) and E05 info once per configuration; nothing at warning"},
		{"kubebuilder-install", "kubebuilder dist/install.yaml: the fail-closed validating webhook on apps/v1 Deployments without namespaceSelector draws B10, and D01 at info only (Deployments are written by people and deploy tools, not on the control plane's paths); B07 and B08 once for the 1-replica manager; the cainjector annotation means no E05"},
		{"pod-webhook-no-selector", "JobSet/Kueue pod integration: fail-closed pod webhooks without namespaceSelector draw B01 and B02 errors and D01 warnings; C04, D01 and E05 infos for the rest"},
		{"addon-unprotected", "fail-closed pod policy webhook exempting only kube-system and its own namespace by name, otherwise well run: one B11 warning and nothing else"},
		{"opt-in-injector", "Istio sidecar injector: fail-closed on pods but opt-in by namespace or pod label, caBundle patched by the control plane through RBAC: no B01, B02, B11 or E05; the unset timeout draws D01 warnings on the namespace opt-in webhooks and D01 info on the pod-label opt-in ones, C04 info on the namespace opt-in ones"},
		{"runtime-rules", "Knative Eventing/Tekton: configurations shipped without rules or caBundle, filled at runtime by a webhook whose ClusterRole may update and patch them, HPA floor 2 and a PDB: no finding at all (webhooks without rules intercept nothing until they are filled in, so neither B07/B08 nor D01 applies; the RBAC rules out E05)"},
		{"hpa-floor", "Knative Serving HA overlay: Deployment replicas 1 but HPA minReplicas 2, with a PDB: no B07, no B08; D01 info for each 10 s timeout on the project's kinds"},
		{"shared-server", "KServe: one 1-replica Deployment without PDB serving three fail-closed configurations: B07 and B08 exactly once, naming the other two; the pod mutator, opt-in by pod label, draws D01 info but no B01/B02"},
		{"blank-placeholder", "Kueue/Cluster API default overlay: caBundle Cg== next to cert-manager.io/inject-ca-from: no E01, no E05; D01 info (timeout unset) only"},
		{"fail-open-injector", "Vault agent injector/EKS pod identity webhook: Ignore pod mutator with a 30 s timeout draws a D01 warning and C04 info but no B01/B02; caBundle patched through RBAC, so no E05"},
		{"merge-keys", "YAML anchors and <<: overrides read as kubectl reads them: only the first webhook's own 30 s timeout on its custom resource draws D01 info; the overridden Ignore/2 s and 4 s draw nothing"},
		{"leases-fail-closed", "Gatekeeper with failurePolicy Fail: a webhook on every resource without kube-node-lease or kube-system exemption draws B05 and B01 errors, a B12 error for the Node and certificate writes no namespaceSelector can exempt, B06/C01 warnings and C02 info"},
		{"tenancy-node-webhook", "Capsule single-manifest install: a fail-closed webhook on Node updates draws a B12 error (its namespaceSelector cannot exempt Nodes); the manager bound to the built-in cluster-admin writes the empty caBundles, so no E05; B07/B08 for the 1-replica manager; D01 warnings on the pod and Node webhooks, D01 info on Namespaces and PersistentVolumeClaims; nothing for kube-system, which carries no tenant label"},
		{"bound-policy-set", "Volcano's VAP installer and Kueue's MutatingAdmissionPolicy component: every policy named by its binding, none with parameters, so no F01, F02, F07, F08 or F09; the fail-closed pod policy on every namespace draws F03, as on the real manifest"},
		{"pod-budget-label-exemption", "OpenKruise/Koordinator kustomize builds: pod webhooks exempt namespaces labelled control-plane, which kube-system is not: B01 errors for pod creation and, beyond it, for pod updates and deletes and for evictions, each saying what stops; 2 replicas with a PDB and short timeouts draw nothing else"},
	} {
		t.Run(shape.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "realworld", shape.dir)
			findings := lintFiles(t, Options{}, dir)
			var out bytes.Buffer
			if err := WriteText(&out, findings, Info); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, dir+".golden", out.String())
		})
	}
}
