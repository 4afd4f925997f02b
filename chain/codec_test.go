package chain

import (
	"fmt"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/internal/fuzzcorpus"
)

// decodePlainCases are objects the one-pass decode must take or leave exactly as the
// serializer would: Pods and Deployments of the shapes the chain reads, other spellings of
// apiVersion and kind, other kinds, missing type information, unknown and duplicate members,
// numbers of every shape, invalid text. Each is decoded as a Pod and as a Deployment.
var decodePlainCases = []string{
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}]}]}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"unknown":{"x":[1,2.5,"s",null,true]}}`,
	`{"apiVersion":"v1","kind":"Pod","KIND":"Service","metadata":{"name":"p"}}`,
	`{"apiVersion":"v1","kind":"Pod","ApiVersion":"apps/v1","metadata":{"name":"p"}}`,
	`{"apiVersion":"v1","kind":"Pod","\u212aind":"Service","metadata":{"name":"p"}}`,
	`{"apiVersion":"v1","kind":"Pod","` + "\u212a" + `ind":"Service"}`, // a Kelvin sign folds to k
	`{"apiVersion":"v1","kind":"Pod","Kind":"Pod"}`,
	`{"metadata":{"name":"no type information"}}`,
	`{"kind":"Pod","metadata":{"name":"no apiVersion"}}`,
	`{"apiVersion":"v1","metadata":{"name":"no kind"}}`,
	`{"apiVersion":"v1","kind":"Service","metadata":{"name":"another kind"}}`,
	`{"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"another group"}}`,
	`{"apiVersion":"/v1","kind":"Pod","metadata":{"name":"odd but equal"}}`,
	`{"apiVersion":"a/b/c","kind":"Pod"}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dup","name":"licate"}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"terminationGracePeriodSeconds":1.5}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"terminationGracePeriodSeconds":"30"}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"100m"}}}]}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"\u00e9\ud83d\ude00"}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2026-01-01T00:00:00Z"}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"yesterday"}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"containers":{}}}`,
	`{"apiVersion":"v1","kind":"Pod"`,
	`{"apiVersion":"v1","kind":"Pod"} trailing`,
	`[]`,
	`null`,

	// Pods as webhooks and the chain see them: written by hand, defaulted, running, owned.
	`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","namespace":"shop"},"spec":{"volumes":[{"name":"cache","emptyDir":{"sizeLimit":"1Gi"}}],"containers":[{"name":"web","image":"nginx:1.27","ports":[{"name":"http","containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"resources":{},"volumeMounts":[{"name":"cache","mountPath":"/cache"}],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler","enableServiceLinks":true},"status":{}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-7d9c5b6f4-x2x8q","generateName":"web-7d9c5b6f4-","namespace":"shop","uid":"3f0c2a51-8d4e-4b8a-9a41-6b1f0e2d7c11","resourceVersion":"5130","creationTimestamp":"2026-03-02T10:00:05Z","labels":{"app":"web","pod-template-hash":"7d9c5b6f4"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9c5b6f4","uid":"3f0c2a51-8d4e-4b8a-9a41-6b1f0e2d7c21","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-03-02T10:00:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}],"nodeName":"node-1"},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-03-02T10:00:09Z"}],"hostIP":"10.0.0.4","podIP":"10.1.0.7","podIPs":[{"ip":"10.1.0.7"}],"startTime":"2026-03-02T10:00:05Z","containerStatuses":[{"name":"web","ready":true,"restartCount":0,"image":"nginx:1.27","imageID":"","state":{"running":{"startedAt":"2026-03-02T10:00:08Z"}},"lastState":{}}]}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"scheduled","annotations":{"note":"caf\u00e9 \"quoted\" \\ \n"}},"spec":{"nodeSelector":{"disk":"ssd"},"tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":300}],"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{"labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]},"topologyKey":"kubernetes.io/hostname"}}]}},"containers":[{"name":"c","image":"i"}]}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"probed"},"spec":{"securityContext":{"runAsUser":1000,"runAsNonRoot":true,"fsGroup":2000},"initContainers":[{"name":"init","image":"busybox","command":["sh","-c","true"]}],"containers":[{"name":"c","image":"i","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}},"livenessProbe":{"tcpSocket":{"port":8080},"initialDelaySeconds":5},"readinessProbe":{"exec":{"command":["cat","/ready"]}},"startupProbe":{"httpGet":{"path":"/healthz","port":"http","httpHeaders":[{"name":"X","value":"y"}]}}}]}}`,
	"{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"metadata\": {\n    \"name\": \"pretty\"\n  },\n  \"spec\": {\n    \"containers\": [ { \"name\": \"c\", \"image\": \"i\" } ]\n  }\n}\n",
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"nulls","labels":null,"annotations":{}},"spec":{"volumes":null,"containers":[],"priority":null}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"volumes"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"0.5","memory":"1e3"},"limits":{"nvidia.com/gpu":1}}}],"volumes":[{"name":"cm","configMap":{"name":"cfg","defaultMode":420,"items":[{"key":"a","path":"a.conf"}]}},{"name":"s","secret":{"secretName":"tls","optional":true}},{"name":"p","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}]}}]}}`,

	// Deployments: written by hand, defaulted as the chain passes them on, stored with status,
	// and the spellings the serializer reads otherwise or refuses.
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","labels":{"app":"web"}},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"readinessProbe":{"httpGet":{"path":"/","port":"http"}}}]}}}}`,
	`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"shop","labels":{"app":"web"}},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"readinessProbe":{"httpGet":{"path":"/","port":"http","scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600},"status":{}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"shop","uid":"3f0c2a51-8d4e-4b8a-9a41-6b1f0e2d7c02","resourceVersion":"5188","generation":9,"creationTimestamp":"2026-03-02T10:00:00Z","finalizers":["example.com/keep"],"annotations":{"deployment.kubernetes.io/revision":"4"},"managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"apps/v1","time":"2026-03-02T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},"spec":{"replicas":8,"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},"spec":{"containers":[{"name":"api","image":"registry.example.com/shop/api:2.0.1"}]}}},"status":{"observedGeneration":9,"replicas":8,"updatedReplicas":8,"readyReplicas":8,"availableReplicas":8,"conditions":[{"type":"Available","status":"True","lastUpdateTime":"2026-03-02T10:01:00Z","lastTransitionTime":"2026-03-02T10:01:00Z","reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."}]}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"ints"},"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},"minReadySeconds":5,"paused":true,"replicas":0}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"recreate"},"spec":{"strategy":{"type":"Recreate"},"selector":{"matchExpressions":[{"key":"tier","operator":"NotIn","values":["batch"]}]},"template":{"spec":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"r"}}}],"containers":[{"name":"c","image":"i","env":[{"name":"SECRET","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}],"envFrom":[{"configMapRef":{"name":"cfg"}}]}]}}}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"owned","ownerReferences":[{"apiVersion":"example.com/v1","kind":"App","name":"a","uid":"u","controller":true}]},"spec":{"selector":null,"template":{"spec":{"containers":null}}},"unknown":{"x":[1,2.5,"s",null,true]}}`,
	"{\n  \"apiVersion\": \"apps/v1\",\n  \"kind\": \"Deployment\",\n  \"metadata\": { \"name\": \"pretty\" },\n  \"spec\": { \"replicas\": 2 }\n}\n",
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"\u00e9\ud83d\ude00","labels":{"a":"caf\u00e9"}},"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-03-02T10:00:00Z"}}}}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"vols"},"spec":{"template":{"spec":{"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data"}},{"name":"tmp","emptyDir":{"medium":"Memory","sizeLimit":"64Mi"}}],"containers":[{"name":"c","image":"i","volumeMounts":[{"name":"data","mountPath":"/data","readOnly":true}]}]}}}}`,
	`{"apiVersion":"apps/v1beta1","kind":"Deployment","metadata":{"name":"another version"}}`,
	`{"apiVersion":"extensions/v1beta1","kind":"Deployment","metadata":{"name":"another group"}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","Kind":"Deployment"}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":"3"}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1.5}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":2147483648}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"selector":{"matchLabels":{"a":"1","a":"2"}}}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"strategy":{"rollingUpdate":{"maxSurge":true}}}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","status":{"conditions":[{"lastUpdateTime":"soon"}]}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"template":{"spec":{"containers":[{"name":"c"`,
}

// TestDecodePlainIsTheSerializers holds decodePlain, which decodes in one pass where it can,
// to the webhook plugin's serializer: the same object or the same error, for every case. Where
// the one-pass decode declines, decodePlain is the serializer and the comparison holds
// trivially, so the test also counts, per kind, the cases the one-pass decode decides.
func TestDecodePlainIsTheSerializers(t *testing.T) {
	c := newCodec(nil, nil, nil, "")
	for _, tc := range []struct {
		kind  schema.GroupVersionKind
		floor int
	}{
		{podKind, 13},
		{deploymentKind, 10},
	} {
		decided := 0
		for _, data := range decodePlainCases {
			if checkDecodePlain(t, c, []byte(data), tc.kind) {
				decided++
			}
		}
		t.Logf("%s: the one-pass decode decided %d of %d cases", tc.kind.Kind, decided, len(decodePlainCases))
		if decided < tc.floor {
			t.Errorf("%s: the one-pass decode decided %d cases, fewer than %d: the test compares the serializer with itself", tc.kind.Kind, decided, tc.floor)
		}
	}
}

var (
	podKind        = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	deploymentKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
)

// FuzzDecodePlain decodes every input as a Pod and as a Deployment.
func FuzzDecodePlain(f *testing.F) {
	for _, data := range decodePlainCases {
		f.Add([]byte(data))
	}
	c := newCodec(nil, nil, nil, "")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodePlain(t, c, data, podKind)
		checkDecodePlain(t, c, data, deploymentKind)
	})
}

// The committed corpus of FuzzDecodePlain reaches the one-pass decode for both kinds: an input
// it declines compares the serializer with itself. The fuzzer's own finds rarely stay decodable
// (a mutation breaks the JSON or a field's type), so the corpus holds variants of the decided
// cases: members dropped, nulled, repeated in arrays or added unknown, strings with escapes,
// indented and HTML-escaped spellings.
func TestFuzzDecodePlainCorpusReachesTheOnePassDecode(t *testing.T) {
	c := newCodec(nil, nil, nil, "")
	corpus := fuzzcorpus.Bytes(t, "FuzzDecodePlain")
	for _, tc := range []struct {
		kind  schema.GroupVersionKind
		floor int
	}{
		{podKind, 40},
		{deploymentKind, 40},
	} {
		decided := 0
		for _, data := range corpus {
			if checkDecodePlain(t, c, data, tc.kind) {
				decided++
			}
		}
		t.Logf("%s: the one-pass decode decided %d of %d corpus inputs", tc.kind.Kind, decided, len(corpus))
		if decided < tc.floor {
			t.Errorf("%s: the one-pass decode decided %d corpus inputs, fewer than %d", tc.kind.Kind, decided, tc.floor)
		}
	}
}

// checkDecodePlain compares decodePlain with the serializer on data decoded as kind, and
// reports whether the one-pass decode decided it.
func checkDecodePlain(t *testing.T, c *codec, data []byte, kind schema.GroupVersionKind) bool {
	t.Helper()
	into, err := c.scheme.New(kind)
	if err != nil {
		t.Fatal(err)
	}
	want, _, wantErr := c.plain.Decode(data, nil, into)
	got, gotErr := c.decodePlain(data, kind)
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
		t.Errorf("%s as %s:\nserializer:  %v\ndecodePlain: %v", data, kind.Kind, wantErr, gotErr)
	} else if wantErr == nil && !reflect.DeepEqual(want, got) {
		t.Errorf("%s as %s:\nserializer:  %#v\ndecodePlain: %#v", data, kind.Kind, want, got)
	}
	if into, err = c.scheme.New(kind); err != nil {
		t.Fatal(err)
	}
	return c.decodeOnePass(data, kind, into)
}

// The one-pass decode takes the common shape and leaves what only the serializer reads right.
func TestDecodeOnePassTakesTheCommonShape(t *testing.T) {
	c := newCodec(nil, nil, nil, "")
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, tc := range []struct {
		data string
		want bool
	}{
		{decodePlainCases[0], true},
		{decodePlainCases[1], true},
		{`{"apiVersion":"v1","kind":"Pod","KIND":"Service"}`, false},
		{`{"apiVersion":"v1","kind":"Pod","\u212aind":"Service"}`, false},
		{`{"apiVersion":"v1","kind":"Pod","` + "\u212a" + `ind":"Service"}`, false},
		{`{"metadata":{"name":"no type information"}}`, false},
		{`{"apiVersion":"v1","kind":"Service"}`, false},
		{`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dup","name":"licate"}}`, false},
	} {
		into, err := c.scheme.New(pod)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.decodeOnePass([]byte(tc.data), pod, into); got != tc.want {
			t.Errorf("decodeOnePass(%s) = %t, want %t", tc.data, got, tc.want)
		}
	}
}
