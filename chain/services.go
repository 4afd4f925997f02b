package chain

import (
	"context"
	"fmt"
	"net"
	"sort"
	"sync"

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
	"k8s.io/kubernetes/pkg/registry/core/service/allocator"
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
	ips, err := ipallocator.New(ipNet, newLowestFree)
	if err != nil {
		return nil, nil, fmt.Errorf("allocating from %s: %w", cidr, err)
	}
	portRange, err := utilnet.ParsePortRange(defaultNodePorts)
	if err != nil {
		return nil, nil, err
	}
	ports, err := portallocator.New(*portRange, newLowestFree)
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

// lowestFree allocates cluster IPs and node ports as kube-apiserver's allocators do — from the
// range above offset first, then below it — but the lowest free item of a block rather than a
// random one: allocations are given back as soon as a review is prepared, so every review's
// allocation is the same whatever ran before it or beside it (the preparer allocates one review
// at a time). The apiserver's choice is random; a review's is deterministic.
type lowestFree struct {
	mu          sync.Mutex
	max, offset int
	used        map[int]bool
}

func newLowestFree(max int, _ string, offset int) (allocator.Interface, error) {
	return &lowestFree{max: max, offset: offset, used: map[int]bool{}}, nil
}

func (l *lowestFree) Allocate(i int) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i < 0 || i >= l.max {
		return false, fmt.Errorf("offset %d out of range [0,%d]", i, l.max)
	}
	if l.used[i] {
		return false, nil
	}
	l.used[i] = true
	return true, nil
}

func (l *lowestFree) AllocateNext() (int, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, block := range [][2]int{{l.offset, l.max}, {0, l.offset}} {
		for i := block[0]; i < block[1]; i++ {
			if !l.used[i] {
				l.used[i] = true
				return i, true, nil
			}
		}
	}
	return 0, false, nil
}

func (l *lowestFree) Release(i int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.used, i)
	return nil
}

func (l *lowestFree) ForEach(fn func(int)) {
	l.mu.Lock()
	used := make([]int, 0, len(l.used))
	for i := range l.used {
		used = append(used, i)
	}
	l.mu.Unlock()
	sort.Ints(used)
	for _, i := range used {
		fn(i)
	}
}

func (l *lowestFree) Has(i int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used[i]
}

func (l *lowestFree) Free() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max - len(l.used)
}

func (l *lowestFree) Destroy() {}

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
