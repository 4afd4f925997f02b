package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is Cache's API group.
const Group = "caching.example.com"

// GroupVersion is caching.example.com/v1.
func GroupVersion() schema.GroupVersion { return schema.GroupVersion{Group: Group, Version: "v1"} }

// AddToScheme registers this version's kinds in s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion(), &Cache{})
	metav1.AddToGroupVersion(s, GroupVersion())
	return nil
}

// Cache is v1's Cache.
type Cache struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CacheSpec `json:"spec"`
}

// CacheSpec is v1's spec.
type CacheSpec struct {
	// Engine is redis or memcached, as in v2.
	Engine string `json:"engine,omitempty"`
	Image  string `json:"image,omitempty"`
	// Size is small, medium or large.
	Size string `json:"size"`
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
	return &out
}
