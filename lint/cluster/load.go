package cluster

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/resources"
)

// Options tune Load.
type Options struct {
	// Dynamic, when set, reads cert-manager Certificates (cert-manager.io/v1). Clusters without
	// cert-manager, or without permission to list Certificates, are read without them.
	Dynamic dynamic.Interface
	// Name names the cluster in the sources of what is read (and so in findings), e.g. the
	// kubeconfig context; default "cluster".
	Name string
	// Resources, with Dynamic, reads the parameters of admission policies: the objects of each
	// paramKind, found in the cluster's resources (Secrets excepted: lint never reads them).
	Resources *resources.Mapper
}

// certificates is cert-manager's Certificate resource.
func certificates() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
}

// Load lists what lint needs from the cluster and returns it as a Set, configurations
// defaulted as the apiserver stores them (which they already are), every source named
// opts.Name. It only lists: get and list permissions are enough.
func Load(ctx context.Context, client kubernetes.Interface, opts Options) (*config.Set, error) {
	var objects []runtime.Object
	mutating, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing MutatingWebhookConfigurations: %w", err)
	}
	validating, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing ValidatingWebhookConfigurations: %w", err)
	}
	namespaces, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Namespaces: %w", err)
	}
	for i := range mutating.Items {
		objects = append(objects, &mutating.Items[i])
	}
	for i := range validating.Items {
		objects = append(objects, &validating.Items[i])
	}
	for i := range namespaces.Items {
		objects = append(objects, &namespaces.Items[i])
	}
	policies, err := listPolicies(ctx, client)
	if err != nil {
		return nil, err
	}
	objects = append(objects, policies...)
	// What else to read is what lint relates the configurations to (lint.NeedsOf), as it reads
	// the surroundings of files.
	configurations, err := config.FromObjects(objects...)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's configurations: %w", err)
	}
	needs := lint.NeedsOf(configurations)
	if opts.Dynamic != nil && opts.Resources != nil {
		params, err := listParams(ctx, opts.Dynamic, opts.Resources, needs.ParamKinds)
		if err != nil {
			return nil, err
		}
		objects = append(objects, params...)
	}
	for _, ns := range needs.ServerNamespaces {
		listed, err := listServing(ctx, client, ns)
		if err != nil {
			return nil, err
		}
		objects = append(objects, listed...)
	}
	if opts.Dynamic != nil {
		namespaces := slices.Compact(slices.Sorted(slices.Values(slices.Concat(needs.ServerNamespaces, needs.CertificateNamespaces))))
		listed, err := listCertificates(ctx, opts.Dynamic, namespaces)
		if err != nil {
			return nil, err
		}
		objects = append(objects, listed...)
	}

	set, err := config.FromObjects(objects...)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's objects: %w", err)
	}
	name := opts.Name
	if name == "" {
		name = "cluster"
	}
	setSource(set, config.Source{File: name})
	return set, nil
}

// listCertificates lists cert-manager's Certificates in the namespaces given. The first namespace
// where they are not served (no cert-manager) or not ours to read ends the listing: lint goes on
// with the Certificates listed so far.
func listCertificates(ctx context.Context, client dynamic.Interface, namespaces []string) ([]runtime.Object, error) {
	var objects []runtime.Object
	for _, ns := range namespaces {
		list, err := client.Resource(certificates()).Namespace(ns).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			break // no cert-manager, or not ours to read: lint without Certificates
		}
		if err != nil {
			return nil, fmt.Errorf("listing cert-manager Certificates in %q: %w", ns, err)
		}
		for i := range list.Items {
			objects = append(objects, &list.Items[i])
		}
	}
	return objects, nil
}

// setSource names the cluster as the source of every object of set, instead of the position
// among FromObjects' arguments.
func setSource(set *config.Set, source config.Source) {
	for i := range set.Mutating {
		set.Mutating[i].Source = source
	}
	for i := range set.Validating {
		set.Validating[i].Source = source
	}
	for i := range set.Others {
		set.Others[i].Source = source
	}
}

// listPolicies lists the admission policies and their bindings. A cluster that does not serve a
// kind of them (MutatingAdmissionPolicy off, an older version) is read without it.
func listPolicies(ctx context.Context, client kubernetes.Interface) ([]runtime.Object, error) {
	api := client.AdmissionregistrationV1()
	return listEach(true, []listing{
		{"ValidatingAdmissionPolicies", func() (runtime.Object, error) {
			return api.ValidatingAdmissionPolicies().List(ctx, metav1.ListOptions{})
		}},
		{"ValidatingAdmissionPolicyBindings", func() (runtime.Object, error) {
			return api.ValidatingAdmissionPolicyBindings().List(ctx, metav1.ListOptions{})
		}},
		{"MutatingAdmissionPolicies", func() (runtime.Object, error) {
			return api.MutatingAdmissionPolicies().List(ctx, metav1.ListOptions{})
		}},
		{"MutatingAdmissionPolicyBindings", func() (runtime.Object, error) {
			return api.MutatingAdmissionPolicyBindings().List(ctx, metav1.ListOptions{})
		}},
	})
}

// listing is one list request: what it lists, for messages, and the request.
type listing struct {
	what string
	list func() (runtime.Object, error)
}

// listEach makes each listing and returns the items of all; with unservedToo, a listing the
// cluster does not serve, or does not let lint make, is skipped rather than an error.
func listEach(unservedToo bool, listings []listing) ([]runtime.Object, error) {
	var objects []runtime.Object
	for _, l := range listings {
		list, err := l.list()
		if unservedToo && ignorable(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", l.what, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", l.what, err)
		}
		objects = append(objects, items...)
	}
	return objects, nil
}

// listParams lists the objects of the policies' parameter kinds, in every namespace. Kinds the
// cluster does not serve, or that are not ours to list, are skipped: rule F02 reports the
// first, and lint stays silent on the second rather than guess.
func listParams(ctx context.Context, client dynamic.Interface, mapper *resources.Mapper, kinds []schema.GroupVersionKind) ([]runtime.Object, error) {
	var objects []runtime.Object
	for _, gvk := range kinds {
		if gvk.Group == "" && gvk.Kind == "Secret" {
			continue
		}
		res, err := mapper.ResourceFor(gvk)
		if err != nil {
			continue
		}
		list, err := client.Resource(res.GVR).List(ctx, metav1.ListOptions{})
		if ignorable(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s, parameters of admission policies: %w", res.GVR.GroupResource(), err)
		}
		for i := range list.Items {
			objects = append(objects, &list.Items[i])
		}
	}
	return objects, nil
}

// ignorable reports an error that means "not served here" or "not yours to read".
func ignorable(err error) bool {
	return apierrors.IsNotFound(err) || apierrors.IsForbidden(err)
}

// listServing lists, in one namespace, the objects that serve webhooks. An autoscaler's floor is
// the replicas a workload keeps (B07); the pods are what serves a Service whose selector no
// Deployment, StatefulSet or DaemonSet matches (an Argo Rollout's, a bare Pod), which files show
// as their controllers and a cluster as the pods themselves.
func listServing(ctx context.Context, client kubernetes.Interface, ns string) ([]runtime.Object, error) {
	in := func(what string) string { return fmt.Sprintf("%s in %q", what, ns) }
	opts := metav1.ListOptions{}
	return listEach(false, []listing{
		{in("Services"), func() (runtime.Object, error) { return client.CoreV1().Services(ns).List(ctx, opts) }},
		{in("Deployments"), func() (runtime.Object, error) { return client.AppsV1().Deployments(ns).List(ctx, opts) }},
		{in("StatefulSets"), func() (runtime.Object, error) { return client.AppsV1().StatefulSets(ns).List(ctx, opts) }},
		{in("DaemonSets"), func() (runtime.Object, error) { return client.AppsV1().DaemonSets(ns).List(ctx, opts) }},
		{in("PodDisruptionBudgets"), func() (runtime.Object, error) { return client.PolicyV1().PodDisruptionBudgets(ns).List(ctx, opts) }},
		{in("HorizontalPodAutoscalers"), func() (runtime.Object, error) {
			return client.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, opts)
		}},
		{in("Pods"), func() (runtime.Object, error) { return client.CoreV1().Pods(ns).List(ctx, opts) }},
	})
}
