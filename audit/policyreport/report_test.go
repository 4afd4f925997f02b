package policyreport

import (
	"bytes"
	"strings"
	"testing"
)

// The kinds of each format's reports, a namespace's and the cluster's.
func TestKinds(t *testing.T) {
	for _, tt := range []struct {
		format  Format
		cluster bool
		want    string
	}{{WGPolicy, false, "PolicyReport"}, {WGPolicy, true, "ClusterPolicyReport"}, {OpenReports, false, "Report"}, {OpenReports, true, "ClusterReport"}} {
		if got := tt.format.Kind(tt.cluster); got != tt.want {
			t.Errorf("%s.Kind(%v) = %s, want %s", tt.format, tt.cluster, got, tt.want)
		}
		if r := New(tt.format, "r", map[bool]string{false: "shop"}[tt.cluster]); r.Kind != tt.want || r.APIVersion != string(tt.format) {
			t.Errorf("New(%s): %s %s", tt.format, r.APIVersion, r.Kind)
		}
	}
}

// Statuses and severities order the worst and highest first; a summary counts each status.
func TestRanksAndSummary(t *testing.T) {
	statuses := []Status{StatusFail, StatusError, StatusWarn, StatusSkip, StatusPass}
	for i := 1; i < len(statuses); i++ {
		if statuses[i-1].Rank() >= statuses[i].Rank() {
			t.Errorf("%s ranks after %s", statuses[i-1], statuses[i])
		}
	}
	severities := []Severity{SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo, ""}
	for i := 1; i < len(severities); i++ {
		if severities[i-1].Rank() >= severities[i].Rank() {
			t.Errorf("%q ranks after %q", severities[i-1], severities[i])
		}
	}
	var s Summary
	for _, st := range append(statuses, StatusFail) {
		s.Add(st)
	}
	if want := (Summary{Pass: 1, Fail: 2, Warn: 1, Error: 1, Skip: 1}); s != want || s.Total() != 6 {
		t.Errorf("summary %+v (total %d), want %+v", s, s.Total(), want)
	}
}

// Several reports are one YAML stream, documents apart.
func TestWriteStream(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []Report{New(WGPolicy, "a", ""), New(WGPolicy, "a", "shop")}); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(b.String(), "---\n")
	if len(docs) != 2 || !strings.Contains(docs[0], "kind: ClusterPolicyReport\n") || !strings.Contains(docs[1], "namespace: shop\n") {
		t.Errorf("stream:\n%s", b.String())
	}
}
