package chain

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	apiserverapi "k8s.io/apiserver/pkg/apis/apiserver"
	apiserverapiv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	apiserverapiv1alpha1 "k8s.io/apiserver/pkg/apis/apiserver/v1alpha1"
	"k8s.io/kubernetes/pkg/capabilities"
)

// setupCapabilities sets kube-apiserver's --allow-privileged in Kubernetes' code, which holds it
// process-wide and takes the first setting only: a second setting that differs would be ignored
// silently, so it is an error instead.
func setupCapabilities(allowPrivileged bool) error {
	capabilities.Setup(allowPrivileged, 0)
	if got := capabilities.Get().AllowPrivileged; got != allowPrivileged {
		return fmt.Errorf("--allow-privileged=%v: this process already runs Kubernetes' code with --allow-privileged=%v, which it holds process-wide; review the two settings in separate runs", allowPrivileged, got)
	}
	return nil
}

// readAdmissionConfiguration reads an AdmissionConfiguration file as kube-apiserver reads its
// --admission-control-config-file (apiserver.config.k8s.io v1 and v1alpha1): each plugin's
// configuration, inline or in a file of its own. Without a file, plugins get none.
func readAdmissionConfiguration(path string) (admission.ConfigProvider, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{apiserverapi.AddToScheme, apiserverapiv1alpha1.AddToScheme, apiserverapiv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("the admission configuration's types: %w", err)
		}
	}
	provider, err := admission.ReadAdmissionConfiguration(orderedPlugins(), path, scheme)
	if err != nil {
		return nil, fmt.Errorf("--admission-control-config-file %s: %w", path, err)
	}
	return provider, nil
}
