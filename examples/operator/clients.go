package operator

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook"
)

// ClientLabel asks for a Pod to be given the address of a Cache: its value is the Cache's name,
// in the Pod's namespace. The Pod webhook's objectSelector sends it only the Pods labelled so.
const ClientLabel = "caching.example.com/cache"

// EnvCacheAddress is the environment variable the Pod webhook sets in each container.
const EnvCacheAddress = "CACHE_ADDRESS"

// Clients gives the Pods that ask for a Cache its address, in every container that has none.
type Clients struct{}

// Default implements webhook.Defaulter.
func (Clients) Default(_ context.Context, req *webhook.Request, pod *corev1.Pod) ([]string, error) {
	name := pod.Labels[ClientLabel]
	if name == "" {
		return nil, nil // the objectSelector sends only labelled Pods; an unlabelled one is left alone
	}
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return nil, webhook.Invalid(field.ErrorList{field.Invalid(field.NewPath("metadata", "labels").Key(ClientLabel), name, msgs[0])})
	}
	namespace := pod.Namespace
	if namespace == "" {
		namespace = req.Namespace
	}
	address := fmt.Sprintf("%s.%s.svc:6379", name, namespace)
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if !hasEnv(c, EnvCacheAddress) {
			c.Env = append(c.Env, corev1.EnvVar{Name: EnvCacheAddress, Value: address})
		}
	}
	return nil, nil
}

func hasEnv(c *corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return true
		}
	}
	return false
}
