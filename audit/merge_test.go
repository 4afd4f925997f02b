package audit

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/internal/webhooktest"
	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

// shardFixture is a cluster's objects and traffic with something of every kind of finding:
// writes newly denied (a policy, a webhook), failing (a webhook that errs, failing open),
// warned, mutated, refused under both configurations, not reviewable (a kind without its CRD),
// not audited (a configuration in a dump, a patch of an object the log does not show).
type shardFixture struct {
	baseline, proposal review.Admission
	dump, log          string
}

func newShardFixture(t *testing.T) shardFixture {
	t.Helper()
	server := webhooktest.Start(t)
	hook := func(kind, name, path, groups, resources, extra string) string {
		return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: %s
metadata: {name: %s}
webhooks:
- name: %s.example.com
  clientConfig: {url: %q, caBundle: %s}
  rules: [{apiGroups: [%s], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: [%s]}]
  sideEffects: None
  admissionReviewVersions: [v1]
%s---
`, kind, name, name, server.URL+path, base64.StdEncoding.EncodeToString(server.CABundle), groups, resources, extra)
	}
	baseline := hook("ValidatingWebhookConfiguration", "legacy", webhooktest.Deny(webhooktest.Code(403), webhooktest.Message("no more ConfigMaps here")), `""`, "configmaps",
		"  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ops}}\n")
	proposal := baseline +
		hook("ValidatingWebhookConfiguration", "team-pods", webhooktest.Deny(webhooktest.Code(403), webhooktest.Message("pods need a team label")), `""`, "pods",
			"  namespaceSelector: {matchLabels: {tier: team}}\n") +
		hook("MutatingWebhookConfiguration", "owner", webhooktest.SetLabel("owner", "platform"), `""`, "configmaps", "") +
		hook("ValidatingWebhookConfiguration", "flaky", webhooktest.PathInternalError, "apps", "deployments", "  failurePolicy: Ignore\n") +
		hook("ValidatingWebhookConfiguration", "notes", webhooktest.Allow(webhooktest.Warning("settings are moving to the settings service")), `"*"`, "configmaps, widgets", "") +
		`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-cap}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 5", messageExpression: "'at most 5 replicas, not ' + string(object.spec.replicas)"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-cap}
spec: {policyName: replica-cap, validationActions: [Deny]}
`
	dir := t.TempDir()
	f := shardFixture{baseline: mustSet(t, baseline), dump: filepath.Join(dir, "dump.yaml"), log: filepath.Join(dir, "audit.log")}
	f.proposal = Overlay(f.baseline, mustSet(t, proposal))
	if err := os.WriteFile(f.dump, []byte(shardDump()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.log, []byte(shardLog()), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

var shardNamespaces = []string{"team-a", "team-b", "ops"}

// shardObject is one object of the fixture, as JSON: i names it and chooses its namespace, v
// its fields.
func shardObject(kind string, i, v int) string {
	ns := shardNamespaces[i%len(shardNamespaces)]
	switch kind {
	case "ConfigMap":
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings-%d","namespace":%q},"data":{"n":"%d"}}`, i, ns, v)
	case "Deployment":
		return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"app-%d","namespace":%q,"generation":1},"spec":{"replicas":%d,"selector":{"matchLabels":{"app":"a%d"}},"template":{"metadata":{"labels":{"app":"a%d"}},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}}}`, i, ns, 1+v%9, i, i)
	case "Pod":
		account := "default"
		if v%4 == 3 {
			account = "builder" // no such ServiceAccount: refused under both
		}
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-%d","namespace":%q},"spec":{"serviceAccountName":%q,"containers":[{"name":"c","image":"busybox:1.36"}]}}`, i, ns, account)
	case "Widget":
		return fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w-%d","namespace":%q},"spec":{"size":%d}}`, i, ns, v)
	}
	panic(kind)
}

// shardDump is the fixture's cluster as kubectl get -o json lists it.
func shardDump() string {
	var items []string
	for _, ns := range shardNamespaces {
		tier := "ops"
		if strings.HasPrefix(ns, "team") {
			tier = "team"
		}
		items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q,"labels":{"tier":%q}}}`, ns, tier),
			fmt.Sprintf(`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":%q}}`, ns))
	}
	for i := range 40 {
		for _, kind := range []string{"ConfigMap", "Deployment", "Pod", "Widget"} {
			if kind == "Widget" && i%10 != 0 || kind == "Pod" && i%2 != 0 {
				continue
			}
			items = append(items, shardObject(kind, i, i))
		}
	}
	items = append(items, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"from-the-dump"},"webhooks":[]}`)
	return `{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",\n") + "]}\n"
}

// shardLog is the fixture's traffic, an audit log at Request level: namespaces and objects
// created, updated, patched and deleted by several users, some creates with generated names
// logged at RequestResponse level.
func shardLog() string {
	var lines []string
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	event := func(verb, uri, user string, ref string, extra string) {
		at = at.Add(time.Second)
		lines = append(lines, fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"id-%d","stage":"ResponseComplete","requestURI":%q,"verb":%q,"user":{"username":%q,"groups":["system:authenticated"]},"objectRef":%s,"responseStatus":{"metadata":{},"code":200},%s"stageTimestamp":%q}`,
			len(lines), uri, verb, user, ref, extra, at.Format(time.RFC3339Nano)))
	}
	ref := func(resource, group, ns, name string) string {
		return fmt.Sprintf(`{"resource":%q,"namespace":%q,"name":%q,"apiGroup":%q,"apiVersion":"v1"}`, resource, ns, name, group)
	}
	users := []string{"alice", "bob", "system:serviceaccount:ops:deployer"}
	for _, ns := range shardNamespaces {
		tier := "ops"
		if strings.HasPrefix(ns, "team") {
			tier = "team"
		}
		event("create", "/api/v1/namespaces", "admin", fmt.Sprintf(`{"resource":"namespaces","name":%q,"apiVersion":"v1"}`, ns),
			fmt.Sprintf(`"requestObject":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q,"labels":{"tier":%q}}},`, ns, tier))
	}
	kinds := []struct{ kind, resource, group string }{{"ConfigMap", "configmaps", ""}, {"Deployment", "deployments", "apps"}, {"Pod", "pods", ""}, {"Widget", "widgets", "example.com"}}
	for round := range 3 {
		for i := range 30 {
			for _, k := range kinds {
				if k.kind == "Widget" && i%10 != 0 || k.kind == "Pod" && i%3 != 0 {
					continue
				}
				ns := shardNamespaces[i%len(shardNamespaces)]
				name := map[string]string{"ConfigMap": "settings-", "Deployment": "app-", "Pod": "pod-", "Widget": "w-"}[k.kind] + fmt.Sprint(i)
				user := users[(i+round)%len(users)]
				base := "/api/v1/namespaces/" + ns + "/" + k.resource
				if k.group != "" {
					base = "/apis/" + k.group + "/v1/namespaces/" + ns + "/" + k.resource
				}
				obj := shardObject(k.kind, i, i+round*3)
				switch round {
				case 0:
					event("create", base, user, ref(k.resource, k.group, ns, name), `"requestObject":`+obj+",")
				case 1:
					if i%2 == 0 {
						event("update", base+"/"+name, user, ref(k.resource, k.group, ns, name), `"requestObject":`+obj+",")
					} else {
						event("patch", base+"/"+name, user, ref(k.resource, k.group, ns, name), `"requestObject":{"metadata":{"labels":{"patched":"yes"}}},`)
					}
				case 2:
					if i%5 == 0 {
						event("delete", base+"/"+name, user, ref(k.resource, k.group, ns, name), "")
					} else {
						event("patch", base+"/"+name+"-gone", user, ref(k.resource, k.group, ns, name+"-gone"), `"requestObject":{"metadata":{"labels":{"x":"y"}}},`)
					}
				}
			}
		}
		// Pods created with a generated name: a shard is chosen by the name the response gives.
		for i := range 4 {
			ns := shardNamespaces[i%len(shardNamespaces)]
			name := fmt.Sprintf("job-%d-%d", round, i)
			obj := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"job-","name":%q,"namespace":%q},"spec":{"containers":[{"name":"c","image":"busybox:1.36"}]}}`, name, ns)
			event("create", "/api/v1/namespaces/"+ns+"/pods", "system:serviceaccount:kube-system:job-controller",
				fmt.Sprintf(`{"resource":"pods","namespace":%q,"apiVersion":"v1"}`, ns),
				`"requestObject":{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"job-","namespace":"`+ns+`"},"spec":{"containers":[{"name":"c","image":"busybox:1.36"}]}},"responseObject":`+obj+",")
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// A source audited whole and in 1, 2, 3 and 7 shards gives the same report, byte for byte, once
// the shards' reports — read back from their JSON, as admit audit merge reads them — are merged.
func TestMergedShardsAreTheWholeAudit(t *testing.T) {
	f := newShardFixture(t)
	moment := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	sources := map[string]func(t *testing.T) Source{
		"dump": func(t *testing.T) Source {
			inputs, err := manifest.Expand([]string{f.dump}, manifest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return &Dump{Inputs: inputs, Paths: []string{"dump.yaml"}}
		},
		"audit log": func(t *testing.T) Source { return &Log{Path: f.log, Label: "audit.log"} },
	}
	for name, source := range sources {
		t.Run(name, func(t *testing.T) {
			run := func(shard Shard) *Report {
				t.Helper()
				report, err := Run(context.Background(), source(t), Options{
					Baseline: f.baseline, Proposal: f.proposal, BaselineName: "current", ProposalName: "proposed",
					Limit: 6, BatchSize: 7, Shard: shard, Clock: func() time.Time { return moment },
				})
				if err != nil {
					t.Fatal(err)
				}
				return report
			}
			whole := run(Shard{})
			wholeJSON := marshal(t, whole)
			// The fixture has something of every kind, and more than the limit lists.
			tot := whole.Totals
			for what, n := range map[string]int{"denied": tot.NewlyDenied, "failing": tot.NewlyFailing, "warned": tot.NewlyWarned, "mutated": tot.NewlyMutated,
				"unreviewed": tot.Unreviewed, "refused by both": tot.RefusedByBoth, "skipped": tot.Skipped, "omitted": whole.OmittedObjects} {
				if n == 0 {
					t.Errorf("the whole audit has no %s write: the fixture tests too little\n%s", what, wholeJSON)
				}
			}
			for _, count := range []int{1, 2, 3, 7} {
				var parts []ShardReport
				audited := 0
				for i := range count {
					var back Report
					if err := json.Unmarshal(marshal(t, run(Shard{Index: i, Count: count})), &back); err != nil {
						t.Fatal(err)
					}
					if back.Totals.Audited > 0 {
						audited++
					}
					parts = append(parts, ShardReport{Name: fmt.Sprintf("shard-%d.json", i), Report: &back})
				}
				if count > 1 && audited < 2 {
					t.Errorf("%d shards: %d audited anything: the writes are not spread", count, audited)
				}
				// The order the reports are given in does not matter.
				parts[0], parts[len(parts)-1] = parts[len(parts)-1], parts[0]
				merged, err := Merge(parts)
				if err != nil {
					t.Fatalf("%d shards: %v", count, err)
				}
				if diff := cmp.Diff(string(wholeJSON), string(marshal(t, merged))); diff != "" {
					t.Errorf("%d shards merged differ from the whole audit (-whole +merged):\n%s", count, diff)
				}
			}
		})
	}
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}
