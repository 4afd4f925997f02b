package chain

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// ReadCluster reads from a live cluster the state admission reads, for Config.Objects: every
// Namespace, PriorityClass, StorageClass, IngressClass and RuntimeClass, and the
// ServiceAccounts, LimitRanges and ResourceQuotas of the given namespaces. It only lists, and
// never reads Secrets.
func ReadCluster(ctx context.Context, client kubernetes.Interface, namespaces []string) ([]runtime.Object, error) {
	var out []runtime.Object
	var all metav1.ListOptions
	collect := func(what string, objects []runtime.Object, err error) error {
		if err != nil {
			return fmt.Errorf("listing %s: %w", what, err)
		}
		out = append(out, objects...)
		return nil
	}
	if err := collect(objectsOf(client.CoreV1().Namespaces().List(ctx, all))); err != nil {
		return nil, err
	}
	if err := collect(objectsOf(client.SchedulingV1().PriorityClasses().List(ctx, all))); err != nil {
		return nil, err
	}
	if err := collect(objectsOf(client.StorageV1().StorageClasses().List(ctx, all))); err != nil {
		return nil, err
	}
	if err := collect(objectsOf(client.NetworkingV1().IngressClasses().List(ctx, all))); err != nil {
		return nil, err
	}
	if err := collect(objectsOf(client.NodeV1().RuntimeClasses().List(ctx, all))); err != nil {
		return nil, err
	}
	for _, ns := range namespaces {
		if err := collect(objectsOf(client.CoreV1().ServiceAccounts(ns).List(ctx, all))); err != nil {
			return nil, err
		}
		if err := collect(objectsOf(client.CoreV1().LimitRanges(ns).List(ctx, all))); err != nil {
			return nil, err
		}
		if err := collect(objectsOf(client.CoreV1().ResourceQuotas(ns).List(ctx, all))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// objectsOf returns the items of a list as objects, with what was listed for messages.
func objectsOf(list runtime.Object, err error) (string, []runtime.Object, error) {
	what := fmt.Sprintf("%T", list)
	if err != nil {
		return what, nil, err
	}
	items, err := meta.ExtractList(list)
	return what, items, err
}
