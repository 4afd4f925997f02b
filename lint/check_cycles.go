package lint

import (
	"fmt"
	"slices"
	"strings"
)

// dependency is an edge of the configuration graph: a webhook of one configuration intercepts
// the writes that restart another configuration's server.
type dependency struct {
	to        int // the configuration whose server is intercepted
	via       *webhook
	writes    []request
	namespace string
}

// checkCycles (B04): configurations whose fail-closed webhooks intercept each other's servers.
// The graph has an edge from X to Y when a fail-closed webhook of X intercepts the restart of
// Y's server; a cycle means that once all of them are down, none can come back. Servers that
// share a namespace are B02's.
func checkCycles(a *analysis) []finding {
	edges := a.dependencyGraph()
	var out []finding
	for _, component := range stronglyConnected(len(a.configs), edges) {
		if len(component) < 2 {
			continue
		}
		cycle := shortestCycle(component[0], component, edges)
		names := make([]string, len(cycle))
		for i, node := range cycle {
			names[i] = a.configs[node].display()
		}
		description := strings.Join(names, " → ")
		for i := 0; i+1 < len(cycle); i++ {
			from, to := cycle[i], cycle[i+1]
			e := edgeTo(edges[from], to)
			out = append(out, finding{
				config: a.configs[from], webhook: e.via, field: e.via.path().Child("namespaceSelector").String(),
				message: fmt.Sprintf("fails closed and intercepts %s in %q, where %s is served; the configurations form a cycle, each intercepting the next one's server: %s. After an outage that takes them all down, none can restart",
					describeRequests(e.writes), e.namespace, a.configs[to].display(), description),
				hint: fmt.Sprintf("break the cycle: %s, or give the servers' namespaces runlevels so that each configuration exempts the levels below it", excludeNamespaceHint(e.namespace)),
			})
		}
	}
	return out
}

func (a *analysis) dependencyGraph() [][]dependency {
	edges := make([][]dependency, len(a.configs))
	for x, cx := range a.configs {
		ownNamespaces := map[string]bool{}
		for _, w := range cx.webhooks {
			if w.backend != nil {
				ownNamespaces[w.backend.namespace] = true
			}
		}
		for y, cy := range a.configs {
			if x == y {
				continue
			}
			if e, ok := a.firstInterception(cx, cy, ownNamespaces); ok {
				e.to = y
				edges[x] = append(edges[x], e)
			}
		}
	}
	return edges
}

// firstInterception finds a fail-closed webhook of interceptor that intercepts the restart of
// one of target's servers outside interceptor's own namespaces. Only the servers of target's
// fail-closed webhooks count: while a server whose webhooks fail open is down, they let every
// request through, so nothing waits on its restart and no cycle runs through it.
func (a *analysis) firstInterception(interceptor, target *configuration, ownNamespaces map[string]bool) (dependency, bool) {
	seen := map[namespacedName]bool{}
	for _, tw := range target.webhooks {
		b := tw.backend
		if b == nil || !tw.failClosed() || seen[b.key()] || ownNamespaces[b.namespace] {
			continue
		}
		seen[b.key()] = true
		for _, w := range interceptor.webhooks {
			if !w.failClosed() {
				continue
			}
			if writes := a.interceptedRestartWrites(w, b.namespace, b.podLabels, b.service); len(writes) > 0 {
				return dependency{via: w, writes: writes, namespace: b.namespace}, true
			}
		}
	}
	return dependency{}, false
}

func edgeTo(edges []dependency, to int) dependency {
	for _, e := range edges {
		if e.to == to {
			return e
		}
	}
	return dependency{}
}

// stronglyConnected returns the strongly connected components of the graph (Tarjan), each
// sorted, in order of their smallest node.
func stronglyConnected(n int, edges [][]dependency) [][]int {
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var components [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range edges[v] {
			switch {
			case index[e.to] < 0:
				visit(e.to)
				low[v] = min(low[v], low[e.to])
			case onStack[e.to]:
				low[v] = min(low[v], index[e.to])
			}
		}
		if low[v] != index[v] {
			return
		}
		var component []int
		for {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[top] = false
			component = append(component, top)
			if top == v {
				break
			}
		}
		slices.Sort(component)
		components = append(components, component)
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			visit(v)
		}
	}
	slices.SortFunc(components, func(x, y []int) int { return x[0] - y[0] })
	return components
}

// shortestCycle finds, by breadth-first search within component, the shortest path from start
// back to start: [start, ..., start].
func shortestCycle(start int, component []int, edges [][]dependency) []int {
	inComponent := map[int]bool{}
	for _, v := range component {
		inComponent[v] = true
	}
	parent := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range edges[v] {
			if !inComponent[e.to] {
				continue
			}
			if e.to == start {
				path := []int{start}
				for at := v; at != start; at = parent[at] {
					path = append(path, at)
				}
				slices.Reverse(path[1:])
				return append(path, start)
			}
			if _, seen := parent[e.to]; !seen {
				parent[e.to] = v
				queue = append(queue, e.to)
			}
		}
	}
	return []int{start, start} // unreachable for a component of two or more
}
