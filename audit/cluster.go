package audit

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/clusterstate"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/review"
)

// Cluster is a live cluster's objects, each audited as its next write: every served resource a
// changed step can match, listed a page at a time — in Namespace, or every namespace — never
// Secrets.
type Cluster struct {
	Cluster   *clusterstate.Cluster
	Namespace string
}

// Name is the cluster's address.
func (c *Cluster) Name() string { return c.Cluster.Host }

// Scan counts nothing ahead: the cluster gives its state itself (ClusterInputs).
func (c *Cluster) Scan(context.Context, ScanOptions) (Scan, error) { return Scan{}, nil }

// Writes lists every served resource a changed step can match.
func (c *Cluster) Writes(ctx context.Context, sink Sink) error {
	op := admissionregistrationv1.OperationType(sink.Operation())
	shard := sink.Shard()
	var position int64
	for _, r := range c.Cluster.Served() {
		if !sink.Matcher().Matches(op, r.GVR, "") {
			continue
		}
		switch {
		case r.GVR.Group == "" && r.GVR.Resource == "secrets":
			sink.Note("secrets: admit audit never reads Secrets")
			continue
		case r.GVR.Group == "admissionregistration.k8s.io", !r.Listable, c.Namespace != "" && !r.Namespaced:
			// Configurations and policies are never sent to webhooks or policies; what is only
			// ever created has nothing stored; -n audits one namespace's objects.
			continue
		}
		err := c.Cluster.Each(ctx, r, c.Namespace, func(page []unstructured.Unstructured) error {
			for i := range page {
				obj := &page[i]
				position++
				if !shard.Owns(ObjectKey{Group: r.GVR.Group, Resource: r.GVR.Resource, Namespace: obj.GetNamespace(), Name: obj.GetName()}) {
					continue
				}
				where := obj.GetName()
				if ns := obj.GetNamespace(); ns != "" {
					where = ns + "/" + where
				}
				if err := sink.AddStored(review.Input{Source: fmt.Sprintf("%s: %s %s", c.Cluster.Host, obj.GetKind(), where), Object: obj}, position-1); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ClusterInputs reads from a live cluster what auditing it needs besides the proposal: its
// webhook configurations, admission policies and bindings (the baseline, unless one is given),
// and the state admission reads — in namespace, or every namespace — with the parameters the
// baseline's and the proposal's policies take.
func ClusterInputs(ctx context.Context, c *clusterstate.Cluster, namespace string, proposal review.Admission, baseline *review.Admission) (base review.Admission, state []*unstructured.Unstructured, notes []string, err error) {
	if baseline != nil {
		base = *baseline
	} else if base, err = clusterAdmission(ctx, c); err != nil {
		return review.Admission{}, nil, nil, err
	}
	var policies []*unstructured.Unstructured
	for _, p := range append(append([]review.Input(nil), base.Policies...), Overlay(base, proposal).Policies...) {
		policies = append(policies, p.Object)
	}
	opts := clusterstate.StateOptions{AllNamespaces: namespace == "", ParamKinds: clusterstate.ParamKinds(policies)}
	if namespace != "" {
		opts.Namespaces = []string{namespace}
	}
	state, notes, err = c.State(ctx, opts)
	return base, state, notes, err
}

// clusterAdmission reads the cluster's configurations and policies.
func clusterAdmission(ctx context.Context, c *clusterstate.Cluster) (review.Admission, error) {
	objects, err := c.Admission(ctx)
	if err != nil {
		return review.Admission{}, err
	}
	set := &config.Set{}
	for _, obj := range objects {
		loaded, err := config.FromObjects(obj)
		if err != nil {
			return review.Admission{}, fmt.Errorf("the %s %s of %s: %w", obj.GetKind(), obj.GetName(), c.Host, err)
		}
		set.Append(loaded)
	}
	out := review.AdmissionOf(set)
	for i := range out.Policies {
		out.Policies[i].Source = fmt.Sprintf("the cluster's %s %s", out.Policies[i].Object.GetKind(), out.Policies[i].Object.GetName())
	}
	return out, nil
}
