package reportstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/admitkit/admit/audit"
	"github.com/admitkit/admit/audit/policyreport"
)

// ServedFormats are the Policy Report formats whose kinds the cluster serves — their
// CustomResourceDefinitions installed, by Kyverno, Policy Reporter or openreports.io — the
// working group's first.
func ServedFormats(disc discovery.DiscoveryInterface) ([]policyreport.Format, error) {
	var out []policyreport.Format
	for _, format := range policyreport.Formats() {
		list, err := disc.ServerResourcesForGroupVersion(string(format))
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("discovering %s: %w", format, err)
		}
		served := func(kind string) bool {
			return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == resourceOf(kind) })
		}
		if served(format.Kind(false)) && served(format.Kind(true)) {
			out = append(out, format)
		}
	}
	return out, nil
}

// FormatsToApply are the Policy Report formats to apply to the cluster: every format it serves
// when want is empty, otherwise want, which it must serve (an error says to install its CRDs).
// None served, with want empty, is no error: there is nothing to apply to.
func FormatsToApply(disc discovery.DiscoveryInterface, want policyreport.Format) ([]policyreport.Format, error) {
	served, err := ServedFormats(disc)
	if err != nil || want == "" {
		return served, err
	}
	if !slices.Contains(served, want) {
		return nil, fmt.Errorf("the cluster does not serve %s: install its CRDs, or give auto to apply the formats it serves", want)
	}
	return []policyreport.Format{want}, nil
}

// ApplyPolicyReports applies the report's Policy Reports of format (audit.Report.PolicyReports)
// to the cluster by server-side apply, as field manager "admit", taking over fields another
// manager set: each replaces the report of its name and namespace an earlier audit applied. It
// returns the names of those applied, "KIND NAMESPACE/NAME".
func ApplyPolicyReports(ctx context.Context, client dynamic.Interface, report *audit.Report, format policyreport.Format) ([]string, error) {
	gv, err := schema.ParseGroupVersion(string(format))
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, r := range report.PolicyReports(format) {
		obj, err := toUnstructured(r)
		if err != nil {
			return applied, err
		}
		name := r.Kind + " " + strings.TrimPrefix(r.Metadata.Namespace+"/"+r.Metadata.Name, "/")
		resource := client.Resource(gv.WithResource(resourceOf(r.Kind))).Namespace(r.Metadata.Namespace)
		if _, err := resource.Apply(ctx, r.Metadata.Name, obj, metav1.ApplyOptions{FieldManager: audit.PolicyReportSource, Force: true}); err != nil {
			return applied, fmt.Errorf("applying %s: %w", name, err)
		}
		applied = append(applied, name)
	}
	return applied, nil
}

// resourceOf is the resource of a report's kind: the four kinds' plurals add an s.
func resourceOf(kind string) string { return strings.ToLower(kind) + "s" }

// toUnstructured is a report as the dynamic client sends it.
func toUnstructured(r policyreport.Report) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.Kind, r.Metadata.Name, err)
	}
	return obj, nil
}
