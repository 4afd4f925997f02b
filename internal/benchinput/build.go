package benchinput

import (
	"fmt"
	"strings"
)

// Build is a kustomize-shaped input of n objects: per team a Namespace, a ServiceAccount and a
// LimitRange, then Deployments, Services (cluster IPs allocated), ConfigMaps with generateName
// (names generated), custom resources of a CRD in the same input, and an admission policy that
// denies some of them.
func Build(n int) []byte {
	var b strings.Builder
	b.WriteString(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, default: 1}}}}}}
`)
	for i := 0; i < n; i++ {
		team := fmt.Sprintf("team-%d", i/50)
		b.WriteString("---\n")
		switch {
		case i%50 == 0:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: Namespace\nmetadata: {name: %s, labels: {pod-security.kubernetes.io/enforce: baseline}}\n", team)
		case i%50 == 1:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: LimitRange\nmetadata: {name: defaults, namespace: %s}\nspec: {limits: [{type: Container, defaultRequest: {cpu: 100m}}]}\n", team)
		case i%5 == 0:
			fmt.Fprintf(&b, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app-%d, namespace: %s}\nspec:\n  selector: {matchLabels: {app: a%d}}\n  template:\n    metadata: {labels: {app: a%d}}\n    spec: {containers: [{name: app, image: nginx:1.%d}]}\n", i, team, i, i, i%30)
		case i%5 == 1:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: Service\nmetadata: {name: svc-%d, namespace: %s}\nspec: {selector: {app: a%d}, ports: [{port: 80}], type: NodePort}\n", i, team, i)
		case i%5 == 2:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: settings-, namespace: %s}\ndata: {size: \"%d\"}\n", team, i)
		case i%5 == 3:
			fmt.Fprintf(&b, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w-%d, namespace: %s}\nspec: {}\n", i, team)
		default:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata: {name: pod-%d, namespace: %s}\nspec: {hostNetwork: %v, containers: [{name: app, image: busybox}]}\n", i, team, i%7 == 0)
		}
	}
	return []byte(b.String())
}

// Policy denies the build's ConfigMaps whose size is a multiple of 13.
const Policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: unlucky}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  validations: [{expression: "int(object.data.size) % 13 != 0", message: unlucky size}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: unlucky}
spec: {policyName: unlucky, validationActions: [Deny]}
`
