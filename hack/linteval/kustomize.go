package main

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomizeOutput is the file a kustomization's output is written to, next to it.
const kustomizeOutput = "zz-kustomize-build.yaml"

// buildKustomization runs kustomize build on dir (relative to m.Root) with kustomize's own
// library, writes the output next to the kustomization and makes it the one thing linted.
func buildKustomization(m *materialized, dir string) error {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(m.Root, dir))
	if err != nil {
		return fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	out, err := resources.AsYaml()
	if err != nil {
		return fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	file := filepath.Join(dir, kustomizeOutput)
	if err := os.WriteFile(filepath.Join(m.Root, file), out, 0o644); err != nil {
		return fmt.Errorf("writing the output of kustomize build %s: %w", dir, err)
	}
	m.LintPaths = []string{file}
	return nil
}
