//go:build e2e

package e2e

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	wt "github.com/admitkit/admit/internal/webhooktest"
)

// The chain scenarios: what webhooks receive behind kube-apiserver — every object defaulted,
// changed by the built-in admission plugins, prepared by the registry — compared field by field
// with what the dispatcher sends them through package chain (see the harness for what is
// normalised). Every scenario records the whole object at a mutating and a validating webhook
// on the written resource; some add webhooks that change it or policies of the namespace.

// Paths of the recording webhooks: the mutating one allows, the validating one allows with a
// warning, so that the two record apart.
func mutatingRecorder() string   { return wt.Allow() }
func validatingRecorder() string { return wt.Allow(wt.Warning("validated")) }

// recorders is a mutating and a validating recording webhook on CREATE and UPDATE of a
// resource, after the given mutating webhooks.
func recorders(group, version, resource string, clusterScoped bool, mutating ...hook) (m, v []configuration) {
	rules := []admissionregistrationv1.RuleWithOperations{ruleFor(group, version, resource, clusterScoped, admissionregistrationv1.Create, admissionregistrationv1.Update)}
	for i := range mutating {
		if mutating[i].rules == nil {
			mutating[i].rules = rules
		}
	}
	m = one(append(mutating, hook{name: "seen-mutating", path: mutatingRecorder(), rules: rules, reinvokeIfNeeded: true})...)
	v = one(hook{name: "seen-validating", path: validatingRecorder(), rules: rules})
	return m, v
}

// ruleFor is a rule for operations on a resource of either scope.
func ruleFor(group, version, resource string, clusterScoped bool, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
	scope := admissionregistrationv1.NamespacedScope
	if clusterScoped {
		scope = admissionregistrationv1.ClusterScope
	}
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}, Scope: &scope},
	}
}

// chainScenario is a write of one object with recorders on its resource.
func chainScenario(name string, gvr schema.GroupVersionResource, object map[string]any, mutating ...hook) differential {
	m, v := recorders(gvr.Group, gvr.Version, gvr.Resource, false, mutating...)
	return differential{name: name, mutating: m, validating: v, write: write{op: admissionv1.Create, gvr: gvr, object: object}}
}

// updateScenario writes existing, then updates it.
func updateScenario(name string, gvr schema.GroupVersionResource, existing map[string]any, update func(*unstructured.Unstructured)) differential {
	m, v := recorders(gvr.Group, gvr.Version, gvr.Resource, false)
	return differential{name: name, mutating: m, validating: v, write: write{op: admissionv1.Update, gvr: gvr, existing: existing, update: update}}
}

func obj(apiVersion, kind, name string, rest map[string]any) map[string]any {
	out := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}
	for k, v := range rest {
		out[k] = v
	}
	return out
}

func containers(images ...string) []any {
	var out []any
	for i, image := range images {
		out = append(out, map[string]any{"name": "c" + string(rune('0'+i)), "image": image})
	}
	return out
}

func podTemplate(labels map[string]any, images ...string) map[string]any {
	return map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{"containers": containers(images...)}}
}

func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

func chainScenarios() []differential {
	app := map[string]any{"app": "web"}
	selector := map[string]any{"matchLabels": app}
	pods := gvr("", "v1", "pods")
	deployments := gvr("apps", "v1", "deployments")
	services := gvr("", "v1", "services")
	sidecar := `[{"op":"add","path":"/spec/containers/-","value":{"name":"proxy","image":"envoyproxy/envoy:latest"}}]`

	scenarios := []differential{
		chainScenario("Pod", pods, obj("v1", "Pod", "web", map[string]any{"spec": map[string]any{"containers": containers("nginx:1.27")}})),
		chainScenario("Pod with a :latest image and an init container", pods, obj("v1", "Pod", "web", map[string]any{
			"spec": map[string]any{"containers": containers("nginx"), "initContainers": []any{map[string]any{"name": "init", "image": "busybox:latest"}}}})),
		chainScenario("Deployment without replicas or strategy", deployments, obj("apps/v1", "Deployment", "web", map[string]any{
			"spec": map[string]any{"selector": selector, "template": podTemplate(app, "nginx:latest")}})),
		chainScenario("StatefulSet", gvr("apps", "v1", "statefulsets"), obj("apps/v1", "StatefulSet", "db", map[string]any{
			"spec": map[string]any{"selector": selector, "serviceName": "db", "template": podTemplate(app, "postgres:17"),
				"volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "data"},
					"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}}}}})),
		chainScenario("DaemonSet", gvr("apps", "v1", "daemonsets"), obj("apps/v1", "DaemonSet", "agent", map[string]any{
			"spec": map[string]any{"selector": selector, "template": podTemplate(app, "fluent-bit:3")}})),
		chainScenario("ReplicaSet", gvr("apps", "v1", "replicasets"), obj("apps/v1", "ReplicaSet", "web", map[string]any{
			"spec": map[string]any{"selector": selector, "template": podTemplate(app, "nginx")}})),
		chainScenario("Job", gvr("batch", "v1", "jobs"), obj("batch/v1", "Job", "migrate", map[string]any{
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": containers("migrate:1"), "restartPolicy": "Never"}}}})),
		chainScenario("CronJob", gvr("batch", "v1", "cronjobs"), obj("batch/v1", "CronJob", "nightly", map[string]any{
			"spec": map[string]any{"schedule": "0 3 * * *", "jobTemplate": map[string]any{"spec": map[string]any{
				"template": map[string]any{"spec": map[string]any{"containers": containers("backup:2"), "restartPolicy": "OnFailure"}}}}}})),
		chainScenario("Service", services, obj("v1", "Service", "web", map[string]any{
			"spec": map[string]any{"selector": app, "ports": []any{map[string]any{"port": int64(80), "targetPort": "http"}}}})),
		chainScenario("Service of type NodePort", services, obj("v1", "Service", "edge", map[string]any{
			"spec": map[string]any{"type": "NodePort", "selector": app, "ports": []any{map[string]any{"port": int64(443)}}}})),
		chainScenario("ConfigMap", gvr("", "v1", "configmaps"), obj("v1", "ConfigMap", "settings", map[string]any{"data": map[string]any{"k": "v"}})),
		chainScenario("Secret with stringData", gvr("", "v1", "secrets"), obj("v1", "Secret", "token", map[string]any{"stringData": map[string]any{"token": "s3cr3t"}})),
		chainScenario("ServiceAccount", gvr("", "v1", "serviceaccounts"), obj("v1", "ServiceAccount", "builder", nil)),
		chainScenario("Ingress", gvr("networking.k8s.io", "v1", "ingresses"), obj("networking.k8s.io/v1", "Ingress", "web", map[string]any{
			"spec": map[string]any{"rules": []any{map[string]any{"host": "web.example.com", "http": map[string]any{"paths": []any{map[string]any{
				"path": "/", "pathType": "Prefix", "backend": map[string]any{"service": map[string]any{"name": "web", "port": map[string]any{"number": int64(80)}}}}}}}}}})),
		chainScenario("PersistentVolumeClaim", gvr("", "v1", "persistentvolumeclaims"), obj("v1", "PersistentVolumeClaim", "data", map[string]any{
			"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "5Gi"}}}})),
		chainScenario("HorizontalPodAutoscaler v2", gvr("autoscaling", "v2", "horizontalpodautoscalers"), obj("autoscaling/v2", "HorizontalPodAutoscaler", "web", map[string]any{
			"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": int64(5)}})),
		chainScenario("HorizontalPodAutoscaler v1", gvr("autoscaling", "v1", "horizontalpodautoscalers"), obj("autoscaling/v1", "HorizontalPodAutoscaler", "web", map[string]any{
			"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": int64(5)}})),
		chainScenario("PodDisruptionBudget", gvr("policy", "v1", "poddisruptionbudgets"), obj("policy/v1", "PodDisruptionBudget", "web", map[string]any{
			"spec": map[string]any{"selector": selector, "maxUnavailable": int64(1)}})),
		chainScenario("NetworkPolicy", gvr("networking.k8s.io", "v1", "networkpolicies"), obj("networking.k8s.io/v1", "NetworkPolicy", "deny", map[string]any{
			"spec": map[string]any{"podSelector": map[string]any{}, "ingress": []any{map[string]any{"ports": []any{map[string]any{"port": int64(80)}}}}}})),
		chainScenario("a sidecar injector: the next webhook sees the sidecar defaulted, with its token mount after reinvocation", pods,
			obj("v1", "Pod", "web", map[string]any{"spec": map[string]any{"containers": containers("nginx:1.27")}}),
			hook{name: "sidecar", path: wt.Patch(sidecar)}),
		chainScenario("a webhook's member unknown to the kind is gone before the next webhook", gvr("", "v1", "configmaps"),
			obj("v1", "ConfigMap", "settings", map[string]any{"data": map[string]any{"k": "v"}}),
			hook{name: "unknown", path: wt.Patch(`[{"op":"add","path":"/extra","value":{"a":1}},{"op":"add","path":"/data/added","value":"yes"}]`)}),
		chainScenario("a Deployment the kind's validation rejects before validating webhooks", deployments, obj("apps/v1", "Deployment", "web", map[string]any{
			"spec": map[string]any{"selector": selector, "template": podTemplate(map[string]any{"app": "api"}, "nginx")}})),
		chainScenario("a Pod naming a priority class that does not exist", pods, obj("v1", "Pod", "web", map[string]any{
			"spec": map[string]any{"containers": containers("nginx"), "priorityClassName": "missing"}})),
		chainScenario("a Pod naming a runtime class that does not exist", pods, obj("v1", "Pod", "web", map[string]any{
			"spec": map[string]any{"containers": containers("nginx"), "runtimeClassName": "gvisor"}})),
		chainScenario("a Pod of a ServiceAccount that does not exist", pods, obj("v1", "Pod", "web", map[string]any{
			"spec": map[string]any{"containers": containers("nginx"), "serviceAccountName": "missing"}})),
		chainScenario("a ConfigMap with an unknown field: a warning, the field dropped", gvr("", "v1", "configmaps"),
			obj("v1", "ConfigMap", "settings", map[string]any{"data": map[string]any{"k": "v"}, "spec": map[string]any{"extra": true}})),
		updateScenario("Deployment UPDATE of the template: generation bumped", deployments,
			obj("apps/v1", "Deployment", "web", map[string]any{"spec": map[string]any{"selector": selector, "template": podTemplate(app, "nginx:1.26")}}),
			func(o *unstructured.Unstructured) {
				_ = unstructured.SetNestedSlice(o.Object, []any{map[string]any{"name": "c0", "image": "nginx:1.27"}}, "spec", "template", "spec", "containers")
			}),
		updateScenario("Pod UPDATE of labels", pods, obj("v1", "Pod", "web", map[string]any{"spec": map[string]any{"containers": containers("nginx")}}),
			func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"tier": "front"}) }),
		updateScenario("Service UPDATE without its cluster IP keeps it", services,
			obj("v1", "Service", "web", map[string]any{"spec": map[string]any{"selector": app, "ports": []any{map[string]any{"port": int64(80)}}}}),
			func(o *unstructured.Unstructured) {
				unstructured.RemoveNestedField(o.Object, "spec", "clusterIP")
				unstructured.RemoveNestedField(o.Object, "spec", "clusterIPs")
				o.SetLabels(map[string]string{"tier": "front"})
			}),
	}

	wants := map[string]want{
		"a Deployment the kind's validation rejects before validating webhooks": {code: 422, message: "`selector` does not match template `labels`"},
		"a Pod naming a priority class that does not exist":                     {code: 403, message: "no PriorityClass with name missing was found"},
		"a Pod naming a runtime class that does not exist":                      {code: 403, message: `"gvisor" not found`},
		"a Pod of a ServiceAccount that does not exist":                         {code: 403, message: `serviceaccount "missing" not found`},
	}
	for i := range scenarios {
		if w, ok := wants[scenarios[i].name]; ok {
			scenarios[i].want = w
		}
	}

	dry := chainScenario("a dry-run Pod", pods, obj("v1", "Pod", "web", map[string]any{"spec": map[string]any{"containers": containers("nginx")}}))
	dry.write.dryRun = true
	generated := chainScenario("a Pod with generateName", pods, obj("v1", "Pod", "web", map[string]any{"spec": map[string]any{"containers": containers("nginx")}}))
	generated.write.generateName = true
	strict := chainScenario("a ConfigMap with an unknown field under fieldValidation Strict", gvr("", "v1", "configmaps"),
		obj("v1", "ConfigMap", "settings", map[string]any{"data": map[string]any{"k": "v"}, "extra": true}))
	strict.write.fieldValidation = metav1.FieldValidationStrict
	strict.want = want{code: 400, message: `strict decoding error: unknown field "extra"`}
	restricted := chainScenario("PodSecurity enforcing restricted denies a privileged Pod", pods, obj("v1", "Pod", "web", map[string]any{
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx", "securityContext": map[string]any{"privileged": true}}}}}))
	restricted.namespaceLabels = map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}
	restricted.want = want{code: 403, message: `violates PodSecurity "restricted:latest"`}
	warned := chainScenario("PodSecurity warning about baseline", pods, obj("v1", "Pod", "web", map[string]any{
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx", "securityContext": map[string]any{"privileged": true}}}}}))
	warned.namespaceLabels = map[string]string{"pod-security.kubernetes.io/warn": "baseline", "pod-security.kubernetes.io/audit": "baseline"}
	namespace := differential{name: "Namespace", write: write{op: admissionv1.Create, gvr: gvr("", "v1", "namespaces"), clusterScoped: true,
		object: obj("v1", "Namespace", "ns", nil)}}
	namespace.mutating, namespace.validating = recorders("", "v1", "namespaces", true)
	review := differential{name: "a TokenReview: no name needed, nothing prepared", handlerAnswers: true, fields: []string{"spec"},
		write: write{op: admissionv1.Create, gvr: gvr("authentication.k8s.io", "v1", "tokenreviews"), clusterScoped: true, anonymous: true,
			object: map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": map[string]any{"token": "not-a-token"}}}}
	review.mutating, review.validating = recorders("authentication.k8s.io", "v1", "tokenreviews", true)
	scale := func(name string, replicas int64) differential {
		m, v := recorders("apps", "v1", "deployments/scale", false)
		return differential{name: name, mutating: m, validating: v, fields: []string{"spec", "status"},
			write: write{op: admissionv1.Update, gvr: deployments, subresource: "scale",
				existing: obj("apps/v1", "Deployment", "web", map[string]any{"spec": map[string]any{"replicas": int64(2), "selector": selector, "template": podTemplate(app, "nginx:1.27")}}),
				update: func(o *unstructured.Unstructured) {
					_ = unstructured.SetNestedField(o.Object, replicas, "spec", "replicas")
				}}}
	}
	scaled := scale("deployments/scale: webhooks see Scales, validating ones the Deployment's new Scale", 5)
	negative := scale("deployments/scale: a negative Scale is the scale handler's 422", -1)
	negative.want = want{code: 422, message: `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`}
	scenarios = append(scenarios, dry, generated, strict, restricted, warned, namespace, review, scaled, negative, widgetScenario())
	return scenarios
}

// widgetScenario creates a custom resource whose schema has defaults, with an unknown field.
func widgetScenario() differential {
	group := "chain.e2e.admit.dev"
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size":  {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte(`1`)}},
							"color": {Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"blue"`)}},
						}},
						"status": {Type: "object", XPreserveUnknownFields: ptrTo(true)},
					},
				}},
			}},
		},
	}
	sc := chainScenario("a custom resource with schema defaults and an unknown field", gvr(group, "v1", "widgets"),
		obj(group+"/v1", "Widget", "w", map[string]any{"spec": map[string]any{"size": int64(3), "extra": true}, "status": map[string]any{"ready": true}}),
		hook{name: "widget-extra", path: wt.Patch(`[{"op":"add","path":"/spec/added","value":"kept until storage"}]`)})
	sc.crd = crd
	return sc
}

func TestDifferentialChainMatchesAPIServer(t *testing.T) {
	suite := newDifferentialSuite(t)
	for _, sc := range chainScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			suite.run(t, &sc)
		})
	}
}

// TestDifferentialChainClusterWideState runs the scenarios whose state is cluster-wide (a
// PriorityClass marked globalDefault changes every new pod) alone: no other test runs while a
// top-level test that is not parallel does.
func TestDifferentialChainClusterWideState(t *testing.T) {
	suite := newDifferentialSuite(t)
	ctx := context.Background()
	pc, err := env.Client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "chain-e2e-default"}, Value: 1000, GlobalDefault: true,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.SchedulingV1().PriorityClasses().Delete(context.Background(), pc.Name, metav1.DeleteOptions{})
	})

	sc := chainScenario("a namespace with a LimitRange, under a globalDefault PriorityClass", gvr("", "v1", "pods"),
		obj("v1", "Pod", "web", map[string]any{"spec": map[string]any{"containers": containers("nginx", "redis")}}))
	sc.setup = func(t *testing.T, namespace string) {
		_, err := env.Client.CoreV1().LimitRanges(namespace).Create(ctx, &corev1.LimitRange{
			ObjectMeta: metav1.ObjectMeta{Name: "defaults"},
			Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
				Type:           corev1.LimitTypeContainer,
				Default:        corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
				DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	suite.run(t, &sc)
}
