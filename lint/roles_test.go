package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRoleMayUpdateConfigurations asks the cluster's ClusterRoles, the built-in ones among
// them, whether they let a caBundle writer update a webhook configuration: cluster-admin does,
// admin, edit and view do not unless the input aggregates a role that does into them.
func TestRoleMayUpdateConfigurations(t *testing.T) {
	const aggregatedIntoEdit = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-edit
  labels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}
rules:
- {apiGroups: [admissionregistration.k8s.io], resources: [validatingwebhookconfigurations], verbs: [patch]}
`
	const cyclic = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: loop-a
  labels: {example.com/loop: b}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {example.com/loop: a}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: loop-b
  labels: {example.com/loop: a}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {example.com/loop: b}}]
rules:
- {apiGroups: ["*"], resources: ["*"], verbs: [update]}
`
	const overridesView = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: view}
rules:
- {apiGroups: [admissionregistration.k8s.io], resources: ["*"], verbs: ["*"]}
`
	tests := []struct {
		name  string
		input string
		want  map[string]bool
	}{{
		name:  "built-in roles alone",
		input: "apiVersion: v1\nkind: Namespace\nmetadata: {name: example}\n",
		want:  map[string]bool{"cluster-admin": true, "admin": false, "edit": false, "view": false, "system:aggregate-to-edit": false, "missing": false},
	}, {
		name:  "a role aggregated into edit reaches edit and admin, not view",
		input: aggregatedIntoEdit,
		want:  map[string]bool{"widgets-edit": true, "edit": true, "admin": true, "view": false},
	}, {
		name:  "aggregation loops end",
		input: cyclic,
		want:  map[string]bool{"loop-a": true, "loop-b": true},
	}, {
		name:  "a role given under a built-in name adds to the built-in rules",
		input: overridesView,
		want:  map[string]bool{"view": true, "edit": true},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := newAnalysis(parse(t, tt.input), Options{}, lookupRules(Rules()))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for name := range tt.want {
				got[name] = false
				for _, r := range a.roleRules(name) {
					if mayUpdate(r, "validatingwebhookconfigurations", "widgets") {
						got[name] = true
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("may update (-want +got):\n%s", diff)
			}
		})
	}
}
