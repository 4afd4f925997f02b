package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/admitkit/admit/dispatch/config"
)

// Options tune Load.
type Options struct {
	// Dynamic, when set, reads cert-manager Certificates (cert-manager.io/v1). Clusters without
	// cert-manager, or without permission to list Certificates, are read without them.
	Dynamic dynamic.Interface
	// Name names the cluster in the sources of what is read (and so in findings), e.g. the
	// kubeconfig context; default "cluster".
	Name string
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

	backendNamespaces := map[string]bool{}
	certificateNamespaces := map[string]bool{}
	for _, c := range mutating.Items {
		for _, w := range c.Webhooks {
			if w.ClientConfig.Service != nil {
				backendNamespaces[w.ClientConfig.Service.Namespace] = true
			}
		}
		addInjectionNamespace(certificateNamespaces, c.Annotations)
	}
	for _, c := range validating.Items {
		for _, w := range c.Webhooks {
			if w.ClientConfig.Service != nil {
				backendNamespaces[w.ClientConfig.Service.Namespace] = true
			}
		}
		addInjectionNamespace(certificateNamespaces, c.Annotations)
	}
	for _, ns := range sortedKeys(backendNamespaces) {
		listed, err := listServing(ctx, client, ns)
		if err != nil {
			return nil, err
		}
		objects = append(objects, listed...)
		certificateNamespaces[ns] = true
	}
	if opts.Dynamic != nil {
		for _, ns := range sortedKeys(certificateNamespaces) {
			list, err := opts.Dynamic.Resource(certificates()).Namespace(ns).List(ctx, metav1.ListOptions{})
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
	}

	set, err := config.FromObjects(objects...)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's objects: %w", err)
	}
	name := opts.Name
	if name == "" {
		name = "cluster"
	}
	source := config.Source{File: name}
	for i := range set.Mutating {
		set.Mutating[i].Source = source
	}
	for i := range set.Validating {
		set.Validating[i].Source = source
	}
	for i := range set.Others {
		set.Others[i].Source = source
	}
	return set, nil
}

// listServing lists, in one namespace, the objects that serve webhooks.
func listServing(ctx context.Context, client kubernetes.Interface, ns string) ([]runtime.Object, error) {
	var objects []runtime.Object
	services, err := client.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Services in %q: %w", ns, err)
	}
	for i := range services.Items {
		objects = append(objects, &services.Items[i])
	}
	deployments, err := client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Deployments in %q: %w", ns, err)
	}
	for i := range deployments.Items {
		objects = append(objects, &deployments.Items[i])
	}
	statefulSets, err := client.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing StatefulSets in %q: %w", ns, err)
	}
	for i := range statefulSets.Items {
		objects = append(objects, &statefulSets.Items[i])
	}
	daemonSets, err := client.AppsV1().DaemonSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing DaemonSets in %q: %w", ns, err)
	}
	for i := range daemonSets.Items {
		objects = append(objects, &daemonSets.Items[i])
	}
	budgets, err := client.PolicyV1().PodDisruptionBudgets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing PodDisruptionBudgets in %q: %w", ns, err)
	}
	for i := range budgets.Items {
		objects = append(objects, &budgets.Items[i])
	}
	return objects, nil
}

// addInjectionNamespace records the namespace of the Certificate a cert-manager inject-ca-from
// annotation names.
func addInjectionNamespace(namespaces map[string]bool, annotations map[string]string) {
	if ref, ok := annotations["cert-manager.io/inject-ca-from"]; ok {
		if ns, _, ok := strings.Cut(ref, "/"); ok && ns != "" {
			namespaces[ns] = true
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
