package cli

import (
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// restConfig is the cluster a command reaches, found as kubectl finds it: kubeconfig (the
// --kubeconfig flag), else $KUBECONFIG, else ~/.kube/config, at context (--context) or the
// current one; in a pod with none of them, the pod's service account. name is the context's
// name, "" in a pod. Every command that reaches a cluster finds it here, so that --kubeconfig and
// --context mean the same to all of them. Its errors are the user's input.
func restConfig(kubeconfig, context string) (_ *rest.Config, name string, err error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := loader.ClientConfig()
	switch {
	case clientcmd.IsEmptyConfig(err):
		return nil, "", errors.New("no kubeconfig: give --kubeconfig, set KUBECONFIG, or create ~/.kube/config (kind create cluster writes one)")
	case err != nil && kubeconfig != "":
		return nil, "", fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	case err != nil:
		return nil, "", fmt.Errorf("reading the kubeconfig: %w", err)
	}
	name = context
	if raw, err := loader.RawConfig(); err == nil && name == "" {
		name = raw.CurrentContext
	}
	return cfg, name, nil
}
