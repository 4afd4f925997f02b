package reportstore

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/admitkit/admit/audit"
	"github.com/admitkit/admit/audit/policyreport"
	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

// shardReports audits the repository's example dump in count shards: a policy's binding turned
// from Warn to Deny newly denies two Deployments.
func shardReports(t *testing.T, count int) (whole *audit.Report, shards []*audit.Report) {
	t.Helper()
	baseline, _, err := review.LoadAdmission("baseline", []string{"../../examples/audit/current"}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	changes, _, err := review.LoadAdmission("proposal", []string{"../../examples/audit/deny.yaml"}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(shard audit.Shard) *audit.Report {
		dump, err := manifest.Expand([]string{"../../examples/audit/dump.yaml"}, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		report, err := audit.Run(context.Background(), &audit.Dump{Inputs: dump, Paths: []string{"dump.yaml"}}, audit.Options{
			Baseline: baseline, Proposal: audit.Overlay(baseline, changes), Shard: shard,
		})
		if err != nil {
			t.Fatal(err)
		}
		return report
	}
	whole = run(audit.Shard{})
	for i := range count {
		shards = append(shards, run(audit.Shard{Index: i, Count: count}))
	}
	return whole, shards
}

// comparable is a report's JSON without its time and duration, which differ from run to run.
func comparable(t *testing.T, r *audit.Report) map[string]any {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	delete(out, "time")
	delete(out, "durationSeconds")
	return out
}

// Shards stored one ConfigMap each read back as they were, and merge to the whole audit's
// report; storing a shard again replaces its ConfigMap; a shard deleted is the merge's error.
func TestShardsRoundTrip(t *testing.T) {
	ctx := context.Background()
	whole, shards := shardReports(t, 3)
	client := fake.NewClientset()
	store := &Store{Client: client, Namespace: "admit-audit"}
	var names []string
	for _, r := range shards {
		name, err := store.PutShard(ctx, "nightly", r)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if diff := cmp.Diff([]string{"nightly-0-of-3", "nightly-1-of-3", "nightly-2-of-3"}, names); diff != "" {
		t.Errorf("ConfigMap names (-want +got):\n%s", diff)
	}
	cm, err := client.CoreV1().ConfigMaps("admit-audit").Get(ctx, "nightly-1-of-3", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string]string{"app.kubernetes.io/managed-by": "admit", AuditLabel: "nightly", ShardLabel: "1-of-3"}
	if diff := cmp.Diff(wantLabels, cm.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if len(cm.Data) != 0 || len(cm.BinaryData) != 1 {
		t.Errorf("data %v, binaryData keys %d: want the gzipped report alone", cm.Data, len(cm.BinaryData))
	}

	// Another audit's shards in the namespace are not this one's.
	if _, err := store.PutShard(ctx, "other", shards[0]); err != nil {
		t.Fatal(err)
	}
	read, err := store.Shards(ctx, "nightly")
	if err != nil {
		t.Fatal(err)
	}
	var readNames []string
	for i, s := range read {
		readNames = append(readNames, s.Name)
		if diff := cmp.Diff(comparable(t, shards[i]), comparable(t, s.Report)); diff != "" {
			t.Errorf("%s reads back otherwise (-stored +read):\n%s", s.Name, diff)
		}
	}
	want := []string{"ConfigMap admit-audit/nightly-0-of-3", "ConfigMap admit-audit/nightly-1-of-3", "ConfigMap admit-audit/nightly-2-of-3"}
	if diff := cmp.Diff(want, readNames); diff != "" {
		t.Errorf("shards read (-want +got):\n%s", diff)
	}
	merged, err := audit.Merge(read)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(comparable(t, whole), comparable(t, merged)); diff != "" {
		t.Errorf("merged shards (-whole +merged):\n%s", diff)
	}

	// A rerun's shard replaces the ConfigMap whole.
	cm.BinaryData["stale.gz"] = []byte("left over")
	if _, err := client.CoreV1().ConfigMaps("admit-audit").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutShard(ctx, "nightly", shards[1]); err != nil {
		t.Fatalf("storing a shard again: %v", err)
	}
	cm, err = client.CoreV1().ConfigMaps("admit-audit").Get(ctx, "nightly-1-of-3", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cm.BinaryData["stale.gz"]; ok {
		t.Error("storing a shard again left the earlier ConfigMap's other keys")
	}

	if err := client.CoreV1().ConfigMaps("admit-audit").Delete(ctx, "nightly-2-of-3", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	read, err = store.Shards(ctx, "nightly")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := audit.Merge(read); err == nil || !strings.Contains(err.Error(), "shard 2/3 is missing") {
		t.Errorf("merge without shard 2/3: %v, want it named missing", err)
	}
}

// A merged report is stored as its JSON and its page, and reads back as it was.
func TestPutReport(t *testing.T) {
	ctx := context.Background()
	whole, _ := shardReports(t, 1)
	client := fake.NewClientset()
	store := &Store{Client: client, Namespace: "admit-audit"}
	if err := store.PutReport(ctx, "admit-audit-report", whole); err != nil {
		t.Fatal(err)
	}
	read, err := store.Report(ctx, "admit-audit-report")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(comparable(t, whole), comparable(t, read)); diff != "" {
		t.Errorf("the report reads back otherwise (-stored +read):\n%s", diff)
	}
	cm, err := client.CoreV1().ConfigMaps("admit-audit").Get(ctx, "admit-audit-report", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page := gunzip(t, cm.BinaryData[HTMLKey])
	var want bytes.Buffer
	if err := whole.WriteHTML(&want); err != nil {
		t.Fatal(err)
	}
	if page != want.String() {
		t.Errorf("%s is not the report's page:\n%.300s", HTMLKey, page)
	}
	if _, ok := cm.Labels[AuditLabel]; ok {
		t.Error("the merged report's ConfigMap is labelled as a shard's")
	}
}

func gunzip(t *testing.T, data []byte) string {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// What the store refuses, and the ConfigMaps it cannot read, each with what is wrong.
func TestStoreErrors(t *testing.T) {
	ctx := context.Background()
	whole, shards := shardReports(t, 2)
	incompressible := make([]byte, MaxBytes)
	if _, err := rand.Read(incompressible); err != nil {
		t.Fatal(err)
	}
	huge := *shards[0]
	huge.Notes = append(huge.Notes, hex.EncodeToString(incompressible))
	foreign := func(name string, binary map[string][]byte) *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{AuditLabel: "a"}},
			BinaryData: binary,
		}
	}
	for _, tt := range []struct {
		name     string
		existing []runtime.Object
		do       func(*Store) error
		want     string
	}{
		{"not a shard's report", nil, func(s *Store) error { _, err := s.PutShard(ctx, "a", whole); return err },
			"storing the report of audit a: not a shard's report"},
		{"a name no label takes", nil, func(s *Store) error { _, err := s.PutShard(ctx, "Nightly Audit", shards[0]); return err },
			`audit name "Nightly Audit": a valid label must be`},
		{"a name no ConfigMap takes", nil, func(s *Store) error { return s.PutReport(ctx, "Report!", whole) },
			`storing the report in ConfigMap Report!: ConfigMap name "Report!"`},
		{"over a ConfigMap's size", nil, func(s *Store) error { _, err := s.PutShard(ctx, "a", &huge); return err },
			"storing shard 0/2 of audit a: 1"},
		{"no shard stored", nil, func(s *Store) error { _, err := s.Shards(ctx, "a"); return err },
			"no ConfigMap of namespace ns is labelled audit.admit.dev/audit=a: no shard of audit a stored its report there"},
		{"a ConfigMap without the report", []runtime.Object{foreign("a-0-of-1", nil)},
			func(s *Store) error { _, err := s.Shards(ctx, "a"); return err },
			"ConfigMap ns/a-0-of-1: no report.json.gz in its binaryData: not a ConfigMap admit audit --to-configmap wrote"},
		{"not gzipped", []runtime.Object{foreign("a-0-of-1", map[string][]byte{ReportKey: []byte(`{"kind":"AuditReport"}`)})},
			func(s *Store) error { _, err := s.Shards(ctx, "a"); return err },
			"ConfigMap ns/a-0-of-1: report.json.gz: gzip: invalid header"},
		{"not a report", []runtime.Object{foreign("a-0-of-1", map[string][]byte{ReportKey: gzippedOrFail(t, `{"apiVersion":"apps/v1","kind":"Deployment"}`)})},
			func(s *Store) error { _, err := s.Shards(ctx, "a"); return err },
			"ConfigMap ns/a-0-of-1: report.json.gz: a apps/v1 Deployment, not an audit report"},
		{"no such report", nil, func(s *Store) error { _, err := s.Report(ctx, "missing"); return err },
			`reading the report of ConfigMap ns/missing: configmaps "missing" not found`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do(&Store{Client: fake.NewClientset(tt.existing...), Namespace: "ns"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	// The size refused is the gzipped size, and says so with the limit.
	_, err := (&Store{Client: fake.NewClientset(), Namespace: "ns"}).PutShard(ctx, "a", &huge)
	if err == nil || !strings.Contains(err.Error(), "more than the 1048576 a ConfigMap holds: list fewer writes (admit audit --limit)") {
		t.Errorf("an oversized report: %v", err)
	}
}

func gzippedOrFail(t *testing.T, s string) []byte {
	t.Helper()
	z, err := gzipped([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// CheckWritable passes when the cluster allows both create and update, and says which it
// refuses otherwise.
func TestCheckWritable(t *testing.T) {
	for _, tt := range []struct {
		name    string
		allowed map[string]bool
		want    string
	}{
		{"both", map[string]bool{"create": true, "update": true}, ""},
		{"no update", map[string]bool{"create": true}, "ConfigMaps of namespace ns cannot be written: update is not allowed (RBAC: no rule)"},
		{"nothing", nil, "ConfigMaps of namespace ns cannot be written: create is not allowed (RBAC: no rule)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			var asked []authorizationv1.ResourceAttributes
			// The fake answers as the apiserver's authorizer would for a role granting
			// tt.allowed; what is asked is checked below.
			client.PrependReactor("create", "selfsubjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
				review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
				attrs := review.Spec.ResourceAttributes
				asked = append(asked, *attrs)
				review.Status.Allowed = tt.allowed[attrs.Verb]
				if !review.Status.Allowed {
					review.Status.Reason = "RBAC: no rule"
				}
				return true, review, nil
			})
			err := (&Store{Client: client, Namespace: "ns"}).CheckWritable(context.Background())
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
			for _, a := range asked {
				if a.Namespace != "ns" || a.Resource != "configmaps" || a.Group != "" {
					t.Errorf("asked about %+v, not the namespace's ConfigMaps", a)
				}
			}
		})
	}
}

// ServedFormats are those whose two kinds the cluster serves.
func TestServedFormats(t *testing.T) {
	resources := func(gv string, names ...string) *metav1.APIResourceList {
		list := &metav1.APIResourceList{GroupVersion: gv}
		for _, n := range names {
			list.APIResources = append(list.APIResources, metav1.APIResource{Name: n})
		}
		return list
	}
	for _, tt := range []struct {
		name   string
		served []*metav1.APIResourceList
		want   []policyreport.Format
	}{
		{"none", nil, nil},
		{"both", []*metav1.APIResourceList{
			resources("openreports.io/v1alpha1", "reports", "clusterreports"),
			resources("wgpolicyk8s.io/v1alpha2", "policyreports", "clusterpolicyreports"),
		}, []policyreport.Format{policyreport.WGPolicy, policyreport.OpenReports}},
		{"a format's namespaced kind alone", []*metav1.APIResourceList{
			resources("wgpolicyk8s.io/v1alpha2", "policyreports"),
			resources("openreports.io/v1alpha1", "reports", "clusterreports"),
		}, []policyreport.Format{policyreport.OpenReports}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			disc := fake.NewClientset().Discovery().(*fakediscovery.FakeDiscovery)
			disc.Resources = tt.served
			got, err := ServedFormats(disc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("formats (-want +got):\n%s", diff)
			}
		})
	}
}

// FormatsToApply: every served format when none is asked for; the one asked for only if served.
func TestFormatsToApply(t *testing.T) {
	disc := fake.NewClientset().Discovery().(*fakediscovery.FakeDiscovery)
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "openreports.io/v1alpha1", APIResources: []metav1.APIResource{{Name: "reports"}, {Name: "clusterreports"}}}}
	for _, tt := range []struct {
		want    policyreport.Format
		got     []policyreport.Format
		wantErr string
	}{
		{"", []policyreport.Format{policyreport.OpenReports}, ""},
		{policyreport.OpenReports, []policyreport.Format{policyreport.OpenReports}, ""},
		{policyreport.WGPolicy, nil, "the cluster does not serve wgpolicyk8s.io/v1alpha2: install its CRDs, or give auto to apply the formats it serves"},
	} {
		got, err := FormatsToApply(disc, tt.want)
		if errText := fmt.Sprint(err); tt.wantErr != "" && errText != tt.wantErr || tt.wantErr == "" && err != nil {
			t.Errorf("FormatsToApply(%q) error %v, want %q", tt.want, err, tt.wantErr)
		}
		if diff := cmp.Diff(tt.got, got); diff != "" {
			t.Errorf("FormatsToApply(%q) (-want +got):\n%s", tt.want, diff)
		}
	}
}
