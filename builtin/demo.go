package builtin

import _ "embed" // for the demo objects

// The demo objects, as strings rather than byte slices so that nothing can change them.
var (
	//go:embed demo/deployment.yaml
	demoDeploymentYAML string
	//go:embed demo/configmap.yaml
	demoConfigMapYAML string
	//go:embed demo/namespace.yaml
	demoNamespaceYAML string
)

// Names of the demo objects in DemoObjects.
const (
	// DemoDeployment is a Deployment with images nginx:1.27 and
	// quay.io/prometheus/node-exporter:v1.8.0, both rewritten by DemoConfig's mirrors.
	DemoDeployment = "deployment.yaml"
	// DemoConfigMap is a ConfigMap without the label "team", denied by DemoConfig.
	DemoConfigMap = "configmap.yaml"
	// DemoNamespace is a namespace labelled admit.dev/protected=true, whose deletion DemoConfig
	// denies.
	DemoNamespace = "namespace.yaml"
)

// DemoObjects returns the YAML of the demo objects by name (DemoDeployment, DemoConfigMap,
// DemoNamespace). The map and its contents are the caller's to change.
func DemoObjects() map[string][]byte {
	return map[string][]byte{
		DemoDeployment: []byte(demoDeploymentYAML),
		DemoConfigMap:  []byte(demoConfigMapYAML),
		DemoNamespace:  []byte(demoNamespaceYAML),
	}
}
