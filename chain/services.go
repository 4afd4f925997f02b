package chain

import (
	"context"
	"fmt"
	"net"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	"k8s.io/kubernetes/pkg/registry/core/service/portallocator"
	servicestore "k8s.io/kubernetes/pkg/registry/core/service/storage"
)

// DefaultServiceCIDR is the range Services get cluster IPs from when Config names none: the one
// kubeadm and kind clusters use.
const DefaultServiceCIDR = "10.96.0.0/12"

// defaultNodePorts is kube-apiserver's default --service-node-port-range.
const defaultNodePorts = "30000-32767"

// serviceAllocation is the Service storage's begin-create hook, Kubernetes' own, with in-memory
// allocators: cluster IPs from cidr, node ports from kube-apiserver's default range. The
// storage the hook's REST object would write to is never used.
func serviceAllocation(cidr string) (beginCreate, beginUpdate, error) {
	_, ipNet, err := net.ParseCIDR(cidr)
	if err != nil {
		return nil, nil, fmt.Errorf("the service CIDR %q: %w", cidr, err)
	}
	family := api.IPv4Protocol
	if ipNet.IP.To4() == nil {
		family = api.IPv6Protocol
	}
	ips, err := ipallocator.NewInMemory(ipNet)
	if err != nil {
		return nil, nil, fmt.Errorf("allocating from %s: %w", cidr, err)
	}
	portRange, err := utilnet.ParsePortRange(defaultNodePorts)
	if err != nil {
		return nil, nil, err
	}
	ports, err := portallocator.NewInMemory(*portRange)
	if err != nil {
		return nil, nil, err
	}
	rest, _, _, err := servicestore.NewREST(unusedStorage{}, family, map[api.IPFamily]ipallocator.Interface{family: ips}, ports, nil, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("the Service storage: %w", err)
	}
	create := func(ctx context.Context, obj runtime.Object, options *metav1.CreateOptions) (registry.FinishFunc, error) {
		return rest.Store.BeginCreate(ctx, obj, options)
	}
	update := func(ctx context.Context, obj, old runtime.Object, options *metav1.UpdateOptions) (registry.FinishFunc, error) {
		return rest.Store.BeginUpdate(ctx, obj, old, options)
	}
	return create, update, nil
}

// unusedStorage gives a REST object the options it needs to be built, with a storage that is
// never written to: admission ends before the storage would be.
type unusedStorage struct{}

func (unusedStorage) GetRESTOptions(resource schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{
		StorageConfig:  &storagebackend.ConfigForResource{GroupResource: resource},
		ResourcePrefix: "/" + resource.Resource,
		Decorator: func(*storagebackend.ConfigForResource, string, func(runtime.Object) (string, error), func() runtime.Object,
			func() runtime.Object, storage.AttrFunc, storage.IndexerFuncs, *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
			return noStorage{}, func() {}, nil
		},
	}, nil
}

// noStorage is a storage.Interface whose methods must not be called.
type noStorage struct{ storage.Interface }
