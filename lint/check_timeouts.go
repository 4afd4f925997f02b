package lint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// longTimeoutSeconds is where D01 starts: the apiserver's default.
const longTimeoutSeconds = 10

// checkTimeout (D01): timeouts of 10 seconds or more, graded by the paths they delay. A webhook
// that is down or slow holds each request it intercepts that long: on the writes the control
// plane makes continuously (pods and their bindings, status and deletion, nodes, leases,
// endpoints, events) that stalls controllers, the scheduler and kubelets, and recovery with
// them: a warning, when the webhook intercepts those writes as the control plane makes them
// (its writers, where they write). Elsewhere it delays writes people and deploy tools make now and then
// (Ingresses, NetworkPolicies, PersistentVolumeClaims, Namespaces, workloads) or a project's
// own custom resources: advice.
func checkTimeout(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			seconds := w.timeoutSeconds()
			if seconds < longTimeoutSeconds || len(w.spec.Rules) == 0 {
				continue // without rules (filled in at runtime) it intercepts nothing yet
			}
			path := w.path().Child("timeoutSeconds").String()
			what := fmt.Sprintf("timeoutSeconds is %d", seconds)
			if _, set, known := c.source.Field(path); known && !set {
				what = fmt.Sprintf("timeoutSeconds is unset, so %d s (the default)", seconds)
			}
			f := finding{config: c, webhook: w, field: path, severity: Info,
				hint: "set timeoutSeconds to the time the webhook needs at worst: 1-5 s for checks that stay in memory; a webhook that calls out (image registries, external services) needs more, but should then not sit on the paths every workload shares",
			}
			shared := a.sharedRequests(w)
			ruled, hot := a.hotOf(shared), a.interceptedHot(w)
			switch {
			case len(shared) == 0:
				f.message = what + ": it only intercepts custom resources, whose writes wait that long while the webhook is down or slow"
			case w.objectSelector != nil && !w.objectSelector.Matches(labels.Set{}):
				// An objectSelector that needs a label keeps the webhook to the project's own
				// objects: other workloads never wait for it.
				f.message = fmt.Sprintf("%s: it intercepts %s, but only objects its objectSelector selects (%s), whose writes wait that long while the webhook is down or slow", what, describeRequests(shared), w.objectSelector)
			case len(hot) == 0 && len(ruled) > 0:
				// The rules reach the hot paths, but the writers or places the control plane
				// writes them as are left out: its writes never wait for the webhook.
				f.message = fmt.Sprintf("%s: its rules match %s, but its namespaceSelector and matchConditions leave out the control plane's own writes of them (its controllers, the scheduler and kubelets, in the namespaces they write in): the requests it does intercept wait that long while the webhook is down or slow", what, describeRequests(ruled))
			case len(hot) == 0:
				f.message = fmt.Sprintf("%s: it intercepts %s, which people and deploy tools write now and then, not the writes controllers, the scheduler and kubelets make continuously: those of its requests wait that long while the webhook is down or slow", what, describeRequests(shared))
			default:
				f.severity = Warning
				f.message = fmt.Sprintf("%s: while the webhook is down or slow, every request it intercepts waits that long, among them writes the control plane makes continuously (%s): controllers, the scheduler and kubelets stall, and recovery with them", what, describeRequests(hot))
			}
			out = append(out, f)
		}
	}
	return out
}

// hotOf keeps the requests on the control plane's hot and recovery paths.
func (a *analysis) hotOf(reqs []request) []request {
	hot := map[hotKey]bool{}
	for _, wr := range a.hotWrites() {
		hot[hotKeyOf(wr.request)] = true
	}
	var out []request
	for _, r := range reqs {
		if hot[hotKeyOf(r)] {
			out = append(out, r)
		}
	}
	return out
}

// interceptedHot lists the requests of the control plane's continuous writes that the webhook
// intercepts, as the apiserver decides for each: selectors, rules and matchConditions, for the
// writer that makes it where it makes it.
func (a *analysis) interceptedHot(w *webhook) []request {
	var out []request
	for _, wr := range a.hotWrites() {
		if !slices.Contains(out, wr.request) && a.intercepts(w, wr) {
			out = append(out, wr.request)
		}
	}
	return out
}

// sharedRequests lists the requests for Kubernetes' own resources a webhook's rules match:
// the writes controllers, the scheduler and every user share.
func (a *analysis) sharedRequests(w *webhook) []request {
	var out []request
	for _, r := range a.requestsToCheck() {
		if a.builtin[r.gvr.GroupResource()] && w.matchesRules(a.mapper, r) {
			out = append(out, r)
		}
	}
	return out
}

// chainLink is a webhook's share of the time a request can spend in admission.
type chainLink struct {
	webhook *webhook
	// calls is 2 for a mutating webhook with reinvocationPolicy IfNeeded, else 1.
	calls int
}

func (l chainLink) seconds() int { return l.calls * int(l.webhook.timeoutSeconds()) }

// checkChainDeadline (D02): for every kind of request, the mutating webhooks that match it run
// in sequence (reinvoked ones twice), then the matching validating webhooks in parallel; when
// their timeouts add up past the request deadline, requests can time out before any
// failurePolicy applies. Only webhooks one request can reach together are summed: those whose
// selectors can all match one namespace and one object (webhooks for tenants a, b and c, each
// selecting its own namespaces, never run for the same request). Requests with the same
// webhooks are reported once.
func checkChainDeadline(a *analysis) []finding {
	deadline := int(a.requestTimeout / time.Second)
	var order []string
	chains := map[string]*webhookChain{}
	for _, r := range a.requestsToCheck() {
		var mutating []chainLink
		var validating []*webhook
		for _, c := range a.configs {
			for _, w := range c.webhooks {
				switch {
				case !w.matchesRules(a.mapper, r):
				case w.mutating:
					link := chainLink{webhook: w, calls: 1}
					if w.reinvocation == admissionregistrationv1.IfNeededReinvocationPolicy {
						link.calls = 2
					}
					mutating = append(mutating, link)
				default:
					validating = append(validating, w)
				}
			}
		}
		ch := worstChain(r, mutating, validating)
		if ch.total <= deadline || len(ch.mutating) == 0 {
			continue
		}
		ch.others = len(mutating) + len(validating) - len(ch.mutating)
		if ch.validating != nil {
			ch.others--
		}
		k := ch.key()
		if existing, ok := chains[k]; ok {
			existing.requests = append(existing.requests, r)
			continue
		}
		ch.requests = []request{r}
		chains[k] = ch
		order = append(order, k)
	}
	var out []finding
	for _, k := range order {
		out = append(out, chains[k].finding(deadline))
	}
	return out
}

// webhookChain is the webhooks one request can go through in admission, as D02 sums them.
type webhookChain struct {
	mutating   []chainLink
	validating *webhook
	total      int
	requests   []request
	// others counts the webhooks that match the requests by their rules but that the
	// selectors keep from running together with these.
	others int
}

func (ch *webhookChain) key() string {
	var key []string
	for _, l := range ch.mutating {
		key = append(key, fmt.Sprintf("%s/%s/%d", l.webhook.config.kind, l.webhook.config.name, l.webhook.index))
	}
	if ch.validating != nil {
		key = append(key, fmt.Sprintf("%s/%s/%d", ch.validating.config.kind, ch.validating.config.name, ch.validating.index))
	}
	return strings.Join(key, ",")
}

// finding reports the chain on its mutating webhook that takes longest.
func (ch *webhookChain) finding(deadline int) finding {
	longest := ch.mutating[0]
	var parts []string
	for _, l := range ch.mutating {
		if l.seconds() > longest.seconds() {
			longest = l
		}
		share := fmt.Sprintf("%q %d s", l.webhook.spec.Name, l.webhook.timeoutSeconds())
		if l.calls == 2 {
			share = fmt.Sprintf("%q 2×%d s (reinvocationPolicy IfNeeded)", l.webhook.spec.Name, l.webhook.timeoutSeconds())
		}
		parts = append(parts, share)
	}
	message := fmt.Sprintf("the webhooks matching %s can take %d s together, more than the %d s request deadline: mutating %s",
		describeRequests(ch.requests), ch.total, deadline, strings.Join(parts, " + "))
	if ch.validating != nil {
		message += fmt.Sprintf(", then validating up to %d s (%q)", ch.validating.timeoutSeconds(), ch.validating.spec.Name)
	}
	if ch.others > 0 {
		message += fmt.Sprintf(" (not counted: %s whose rules match too, but whose selectors never select the same namespace and object as these)", plural(ch.others, "other webhook"))
	}
	w := longest.webhook
	return finding{
		config: w.config, webhook: w, field: w.path().Child("timeoutSeconds").String(),
		message: message + "; slow webhooks then time requests out before any failurePolicy applies",
		hint:    "lower timeoutSeconds (1-5 s is plenty for a webhook that answers in milliseconds), and use reinvocationPolicy IfNeeded only where a second call is needed",
	}
}

// maxChainSearch bounds the search for the slowest group of webhooks one request can reach; past
// it, the best group found so far is taken.
const maxChainSearch = 100_000

// worstChain picks, of the webhooks whose rules match a request, the slowest group one request
// can go through: mutating webhooks whose selectors, with those of the validating one, can all
// match one namespace and one object. Validating webhooks run in parallel, so the slowest one
// of the group counts.
func worstChain(r request, mutating []chainLink, validating []*webhook) *webhookChain {
	best := &webhookChain{}
	for _, v := range append([]*webhook{nil}, validating...) {
		base := coMatch{namespace: labelConstraints{}, object: labelConstraints{}}
		extra := 0
		if v != nil {
			base, extra = base.add(v, r), int(v.timeoutSeconds())
			if !base.satisfiable() {
				continue
			}
		}
		links, seconds := slowestCompatible(r, base, mutating)
		if seconds+extra > best.total || (seconds+extra == best.total && len(links) > len(best.mutating)) {
			best = &webhookChain{mutating: links, validating: v, total: seconds + extra}
		}
	}
	return best
}

// slowestCompatible finds the mutating webhooks, compatible with base and with each other, that
// take longest together, by a depth-first search that drops branches which cannot beat the best.
func slowestCompatible(r request, base coMatch, links []chainLink) ([]chainLink, int) {
	all := base
	total := 0
	for _, l := range links {
		all = all.add(l.webhook, r)
		total += l.seconds()
	}
	if all.satisfiable() {
		return links, total // the usual case: nothing keeps them apart
	}
	var best []int
	bestSeconds, steps := -1, 0
	var visit func(i int, m coMatch, chosen []int, seconds, remaining int)
	visit = func(i int, m coMatch, chosen []int, seconds, remaining int) {
		steps++
		if steps > maxChainSearch || seconds+remaining <= bestSeconds {
			return
		}
		if i == len(links) {
			best, bestSeconds = slices.Clone(chosen), seconds
			return
		}
		s := links[i].seconds()
		if next := m.add(links[i].webhook, r); next.satisfiable() {
			visit(i+1, next, append(chosen, i), seconds+s, remaining-s)
		}
		visit(i+1, m, chosen, seconds, remaining-s)
	}
	visit(0, base, nil, 0, total)
	out := make([]chainLink, 0, len(best))
	for _, i := range best {
		out = append(out, links[i])
	}
	return out, max(bestSeconds, 0)
}

// requestsToCheck lists the requests the apiserver can admit: every operation on every served
// resource and subresource the mapper knows, by the verbs it supports, then the resources that
// rules name but the mapper does not know (custom resources whose CRD is not in the input).
func (a *analysis) requestsToCheck() []request {
	if a.requests != nil {
		return a.requests
	}
	var out []request
	known := map[schema.GroupResource]bool{}
	for _, res := range a.mapper.Resources() {
		known[res.GVR.GroupResource()] = true
		for _, op := range operationsFor(res.Verbs) {
			out = append(out, request{gvr: res.GVR, operation: op, namespaced: res.Namespaced})
		}
		for _, sub := range res.Subresources {
			subOps := operationsFor(sub.Verbs)
			if sub.Connect {
				subOps = ops(admissionregistrationv1.Connect)
			}
			for _, op := range subOps {
				out = append(out, request{gvr: res.GVR, subresource: sub.Name, operation: op, namespaced: res.Namespaced})
			}
		}
	}
	seen := map[request]bool{}
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			for _, rule := range w.spec.Rules {
				for _, r := range namedRequests(rule) {
					if !known[r.gvr.GroupResource()] && !seen[r] {
						seen[r] = true
						out = append(out, r)
					}
				}
			}
		}
	}
	a.requests = out
	return out
}

// operationsFor maps discovery verbs to the admission operations they lead to.
func operationsFor(verbs []string) []admissionregistrationv1.OperationType {
	var out []admissionregistrationv1.OperationType
	add := func(op admissionregistrationv1.OperationType) {
		if !slices.Contains(out, op) {
			out = append(out, op)
		}
	}
	for _, v := range verbs {
		switch v {
		case "create":
			add(admissionregistrationv1.Create)
		case "update", "patch":
			add(admissionregistrationv1.Update)
		case "delete", "deletecollection":
			add(admissionregistrationv1.Delete)
		}
	}
	slices.Sort(out)
	return out
}

// namedRequests are the requests a rule names explicitly (no wildcard group, version or
// resource): one per group, version, resource and operation.
func namedRequests(rule admissionregistrationv1.RuleWithOperations) []request {
	operations := rule.Operations
	if slices.Contains(operations, admissionregistrationv1.OperationAll) {
		operations = ops(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete)
	}
	namespaced := rule.Scope == nil || *rule.Scope != admissionregistrationv1.ClusterScope
	var out []request
	for _, g := range rule.APIGroups {
		for _, v := range rule.APIVersions {
			for _, res := range rule.Resources {
				resource, sub, _ := strings.Cut(res, "/")
				if g == "*" || v == "*" || resource == "*" || sub == "*" {
					continue
				}
				for _, op := range operations {
					out = append(out, request{gvr: schema.GroupVersionResource{Group: g, Version: v, Resource: resource}, subresource: sub, operation: op, namespaced: namespaced})
				}
			}
		}
	}
	return out
}
