package review

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/utils/ptr"

	"github.com/admitkit/admit/engine"
)

// deployerPolicy denies a Deployment unless the shop's deployer ServiceAccount may update
// Deployments in its namespace: a question for the cluster's RBAC.
const deployerPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deployer}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - expression: "authorizer.serviceAccount(object.metadata.namespace, 'deployer').group('apps').resource('deployments').namespace(object.metadata.namespace).check('update').allowed()"
    message: "the deployer may not update deployments"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deployer}
spec: {policyName: deployer, validationActions: [Deny]}
`

const shopDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
`

// Admission policies' authorizer checks are answered by Kubernetes' RBAC authorizer over the
// state's Roles, ClusterRoles and bindings and the bootstrap ones, as the apiserver answers them.
func TestPoliciesAskTheClustersRBAC(t *testing.T) {
	tests := []struct {
		name        string
		state       string
		wantAllowed bool
		wantAssumed bool
	}{
		{name: "no RBAC given: a fresh cluster's, where the deployer may not", wantAssumed: true},
		{name: "a RoleBinding to a Role granting it", wantAllowed: true, state: `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: deploy, namespace: shop}
rules: [{apiGroups: [apps], resources: [deployments], verbs: [update]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: deployer, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: deploy}
subjects: [{kind: ServiceAccount, name: deployer, namespace: shop}]
`},
		{name: "a RoleBinding in another namespace", state: `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: deployer, namespace: elsewhere}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: ServiceAccount, name: deployer, namespace: shop}]
`},
		{name: "the bootstrap edit role, which aggregates the apps rules of system:aggregate-to-edit", wantAllowed: true, state: `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: deployer, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: ServiceAccount, name: deployer, namespace: shop}]
`},
		{name: "a ClusterRole of the state aggregated into another", wantAllowed: true, state: `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: deployments-updater, labels: {example.com/aggregate-to-deployer: "true"}}
rules: [{apiGroups: [apps], resources: [deployments], verbs: [update]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: deployer}
aggregationRule: {clusterRoleSelectors: [{matchLabels: {example.com/aggregate-to-deployer: "true"}}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: deployer}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: deployer}
subjects: [{kind: ServiceAccount, name: deployer, namespace: shop}]
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Policies: mustParse(t, "policy.yaml", deployerPolicy)}
			for _, in := range mustParse(t, "state.yaml", tt.state) {
				cfg.Cluster = append(cfg.Cluster, in.Object)
			}
			got, assumed := reviewOne(t, cfg, shopDeployment, authenticationv1.UserInfo{Username: "admit-review", Groups: []string{"system:authenticated"}})
			if got.Result.Allowed != tt.wantAllowed {
				t.Errorf("allowed %v, want %v: %+v", got.Result.Allowed, tt.wantAllowed, got.Result.Status)
			}
			if !got.Result.Allowed && !strings.Contains(got.Result.Status.Message, "the deployer may not update deployments") {
				t.Errorf("denied with %q", got.Result.Status.Message)
			}
			if noted := strings.Contains(strings.Join(assumed, "\n"), "RBAC is a fresh cluster's"); noted != tt.wantAssumed {
				t.Errorf("assumed %q: the RBAC note %v, want %v", assumed, noted, tt.wantAssumed)
			}
		})
	}
}

// A webhook's matchCondition asks the same authorizer: system:masters may do anything, a user
// without a binding nothing.
func TestMatchConditionsAskTheClustersRBAC(t *testing.T) {
	noServer := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	noServer.Name = "gate"
	noServer.Webhooks = []admissionregistrationv1.ValidatingWebhook{{
		Name: "gate.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:1/gate")},
		Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}},
		// Only users who may not delete Deployments reach the webhook, whose server is down.
		MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "not-a-deleter",
			Expression: "!authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace).check('delete').allowed()"}},
		SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
	}}
	for _, tt := range []struct {
		name        string
		user        authenticationv1.UserInfo
		wantAllowed bool
	}{
		{"system:masters may delete: the webhook is not called", authenticationv1.UserInfo{Username: "root", Groups: []string{"system:masters", "system:authenticated"}}, true},
		{"a user without a binding may not: the webhook is called, and fails", authenticationv1.UserInfo{Username: "intern", Groups: []string{"system:authenticated"}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := reviewOne(t, Config{Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{noServer.DeepCopy()}}, shopDeployment, tt.user)
			if diff := cmp.Diff(tt.wantAllowed, got.Result.Allowed); diff != "" {
				t.Errorf("allowed (-want +got):\n%s\n%+v", diff, got.Result.Status)
			}
		})
	}
}

func mustParse(t *testing.T, name, yaml string) []Input {
	t.Helper()
	if yaml == "" {
		return nil
	}
	in, err := Parse(name, []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// reviewOne reviews one object as user, and returns its outcome and what was assumed.
func reviewOne(t *testing.T, cfg Config, object string, user authenticationv1.UserInfo) (*Outcome, []string) {
	t.Helper()
	objects := mustParse(t, "object.yaml", object)
	s, err := New(cfg, objects)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := s.Review(context.Background(), Write{User: user}, objects, nil)
	if err != nil {
		t.Fatal(err)
	}
	if outcomes[0].Err != nil {
		t.Fatal(outcomes[0].Err)
	}
	return outcomes[0], s.Assumed()
}

// A policy whose expression errors under failurePolicy Ignore admits, as the apiserver does,
// and its row says it failed open, with the error: it enforced nothing. Under Fail it denies.
func TestPoliciesThatFailOpenAreShown(t *testing.T) {
	const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  failurePolicy: %s
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicaz <= 5"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [Deny]}
`
	user := authenticationv1.UserInfo{Username: "admit-review", Groups: []string{"system:authenticated"}}
	for _, tt := range []struct {
		failurePolicy string
		wantAllowed   bool
		wantOutcome   engine.Outcome
	}{
		{"Ignore", true, engine.OutcomeFailedOpen},
		{"Fail", false, engine.OutcomeDenied},
	} {
		t.Run(tt.failurePolicy, func(t *testing.T) {
			got, _ := reviewOne(t, Config{Policies: mustParse(t, "policy.yaml", fmt.Sprintf(policy, tt.failurePolicy))}, shopDeployment, user)
			if got.Result.Allowed != tt.wantAllowed {
				t.Errorf("allowed %v, want %v: %+v", got.Result.Allowed, tt.wantAllowed, got.Result.Status)
			}
			var row *engine.Row
			for i := range got.Result.Rows {
				if got.Result.Rows[i].Binding == "replicas" {
					row = &got.Result.Rows[i]
				}
			}
			if row == nil || row.Outcome != tt.wantOutcome || !strings.Contains(row.Reason, "no such key: replicaz") {
				t.Errorf("the binding's row: %+v, want %s naming the error", row, tt.wantOutcome)
			}
		})
	}
}
