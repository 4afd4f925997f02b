package lint

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// configRunlevel is the runlevel a configuration runs at: its annotation, else its server's
// namespace's runlevel label, else the level of webhook servers. from says which.
func (a *analysis) configRunlevel(c *configuration) (level int, from string, err error) {
	if value, ok := c.annotations[RunlevelLabel]; ok {
		level, err := parseRunlevel(value)
		if err != nil {
			return 0, "", err
		}
		return level, "annotation " + RunlevelLabel, nil
	}
	for _, w := range c.webhooks {
		if w.backend == nil {
			continue
		}
		nsLabels, _ := a.inv.namespaceLabels(w.backend.namespace)
		if level, key, ok := runlevel(nsLabels, a.runlevelLabels); ok {
			return level, fmt.Sprintf("label %s of its server's namespace %q", key, w.backend.namespace), nil
		}
	}
	return defaultWebhookRunlevel, "the level of webhook servers, as neither the configuration nor its server's namespace declares one", nil
}

// checkLowerRunlevel (B03): fail-closed webhooks reaching down the runlevels. kube-system and
// the server's own namespace are B01's and B02's.
func checkLowerRunlevel(a *analysis) []finding {
	var out []finding
	names := make([]string, 0, len(a.inv.namespaces))
	for name := range a.inv.namespaces {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, c := range a.configs {
		level, from, err := a.configRunlevel(c)
		if err != nil {
			out = append(out, finding{
				config: c, field: fmt.Sprintf("metadata.annotations[%s]", RunlevelLabel),
				message: fmt.Sprintf("annotation %s: %v", RunlevelLabel, err),
				hint:    "declare the configuration's runlevel as an integer: 2 for ordinary webhooks, higher for webhooks that depend on others",
			})
			continue
		}
		own := map[string]bool{}
		for _, w := range c.webhooks {
			if w.backend != nil {
				own[w.backend.namespace] = true
			}
		}
		for _, ns := range names {
			nsLevel, key, ok := runlevel(a.inv.namespaces[ns], a.runlevelLabels)
			if !ok || nsLevel > level || ns == kubeSystem || own[ns] {
				continue
			}
			for _, w := range c.webhooks {
				if !w.failClosed() {
					continue
				}
				writes := a.interceptedRestartWrites(w, ns, labels.Set{}, "")
				if len(writes) == 0 {
					continue
				}
				out = append(out, finding{
					config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
					message: fmt.Sprintf("fails closed and intercepts %s in %q (%s=%d), at or below the configuration's runlevel %d (%s): what runs there must not depend on this webhook",
						describeRequests(writes), ns, key, nsLevel, level, from),
					hint: fmt.Sprintf("exclude runlevels 0 to %d: add {key: %s, operator: NotIn, values: [%s]} to namespaceSelector.matchExpressions", level, key, runlevelList(level)),
				})
			}
		}
	}
	return out
}

func runlevelList(upTo int) string {
	values := make([]string, 0, upTo+1)
	for i := 0; i <= upTo; i++ {
		values = append(values, fmt.Sprintf("%q", fmt.Sprint(i)))
	}
	return strings.Join(values, ", ")
}
