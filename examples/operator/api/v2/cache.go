package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is Cache's API group.
const Group = "caching.example.com"

// GroupVersion is caching.example.com/v2.
func GroupVersion() schema.GroupVersion { return schema.GroupVersion{Group: Group, Version: "v2"} }

// AddToScheme registers this version's kinds in s, so that s tells a webhook.Webhook (and a
// controller) the group, version and kind of a *Cache.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion(), &Cache{})
	metav1.AddToGroupVersion(s, GroupVersion())
	return nil
}

// Cache asks the operator for an in-memory cache.
type Cache struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CacheSpec `json:"spec"`
}

// CacheSpec is what a Cache asks for.
type CacheSpec struct {
	// Engine is redis or memcached; default redis. It cannot change once created: the data
	// of one engine means nothing to the other.
	Engine string `json:"engine,omitempty"`
	// Image runs the cache; defaulted from the webhook's environment.
	Image string `json:"image,omitempty"`
	// Replicas, 1 to 9; default 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Memory per replica, a quantity such as "512Mi"; it may grow, not shrink.
	Memory string `json:"memory"`
}

// DeepCopyObject implements runtime.Object.
func (c *Cache) DeepCopyObject() runtime.Object { return c.DeepCopy() }

// DeepCopy returns a copy of c that shares nothing with it.
func (c *Cache) DeepCopy() *Cache {
	if c == nil {
		return nil
	}
	out := *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if c.Spec.Replicas != nil {
		replicas := *c.Spec.Replicas
		out.Spec.Replicas = &replicas
	}
	return &out
}
