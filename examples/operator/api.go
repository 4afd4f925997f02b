package operator

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of Cache.
const Group = "caching.example.com"

// Kinds of Cache in its two versions.
var (
	CacheV1 = schema.GroupVersionKind{Group: Group, Version: "v1", Kind: "Cache"}
	CacheV2 = schema.GroupVersionKind{Group: Group, Version: "v2", Kind: "Cache"}
)

// CRDName is the CustomResourceDefinition's name.
const CRDName = "caches." + Group

// Cache is caching.example.com/v2, the storage version and the conversion hub.
type Cache struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CacheSpec `json:"spec"`
}

// CacheSpec is what a Cache asks for.
type CacheSpec struct {
	// Image runs the cache; defaulted from the webhook's environment.
	Image string `json:"image,omitempty"`
	// Replicas, 1 to 9; default 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Memory per replica, a quantity such as "512Mi".
	Memory string `json:"memory"`
}

// CacheV1Object is caching.example.com/v1, served for older clients: a size name instead of
// replicas and memory.
type CacheV1Object struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CacheV1Spec `json:"spec"`
}

// CacheV1Spec is v1's spec.
type CacheV1Spec struct {
	Image string `json:"image,omitempty"`
	// Size is small, medium or large.
	Size string `json:"size"`
}

// DeepCopyObject implements runtime.Object, which the typed webhook adapters need. (Operators
// generate this with controller-gen; a JSON round trip does for an example.)
func (c *Cache) DeepCopyObject() runtime.Object {
	out := &Cache{}
	data, err := json.Marshal(c)
	if err == nil {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		return nil
	}
	return out
}
