package chain

import (
	"hash/fnv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/admitkit/admit/engine"
)

// tokenVolumePrefix begins the name of the projected service account token volume the
// ServiceAccount plugin adds to a pod.
const tokenVolumePrefix = "kube-api-access-"

// nameTokenVolume renames the token volume the ServiceAccount plugin just added to a pod. The
// plugin ends its name with five random characters; here they are derived from the pod, so that
// a review gives the same pod run after run and at any concurrency (the random generator is
// process-wide in Kubernetes' code, shared by every admission).
func nameTokenVolume(before, after runtime.Object, req *engine.Request) {
	pod, ok := after.(*api.Pod)
	if !ok {
		return
	}
	existed := map[string]bool{}
	if old, ok := before.(*api.Pod); ok {
		for _, v := range old.Spec.Volumes {
			existed[v.Name] = true
		}
	}
	for i, v := range pod.Spec.Volumes {
		if !strings.HasPrefix(v.Name, tokenVolumePrefix) || existed[v.Name] || v.Projected == nil {
			continue
		}
		name := tokenVolumePrefix + podSuffix(req)
		rename := func(containers []api.Container) {
			for c := range containers {
				for m := range containers[c].VolumeMounts {
					if containers[c].VolumeMounts[m].Name == v.Name {
						containers[c].VolumeMounts[m].Name = name
					}
				}
			}
		}
		rename(pod.Spec.InitContainers)
		rename(pod.Spec.Containers)
		for e := range pod.Spec.EphemeralContainers {
			for m := range pod.Spec.EphemeralContainers[e].VolumeMounts {
				if pod.Spec.EphemeralContainers[e].VolumeMounts[m].Name == v.Name {
					pod.Spec.EphemeralContainers[e].VolumeMounts[m].Name = name
				}
			}
		}
		pod.Spec.Volumes[i].Name = name
		return
	}
}

// podSuffix is five characters of the apiserver's random-string alphabet, from the pod's
// namespace and name.
func podSuffix(req *engine.Request) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	name := req.Name
	if name == "" {
		name = req.GeneratedName
	}
	h := fnv.New64a()
	h.Write([]byte(req.Namespace + "/" + name))
	n := h.Sum64()
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[n%uint64(len(alphabet))]
		n /= uint64(len(alphabet))
	}
	return string(b)
}
