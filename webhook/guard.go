package webhook

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// guard answers 400 to requests the webhook was not registered for, which only happens when
// a configuration's rules send the wrong resources to its path (edited by hand, or another
// webhook's): a webhook with a kind gets only that kind, one without gets the resources of
// its rules.
func guard(w Webhook, h Handler) Handler {
	if w.Kind.Kind != "" {
		return kindGuard(w.Kind, h)
	}
	rules := w.rules()
	return HandlerFunc(func(ctx context.Context, req *Request) Response {
		res := req.Resource
		if !rulesMatch(rules, res.Group, res.Version, res.Resource, req.SubResource) {
			return badRequest(fmt.Sprintf("this webhook's rules do not match %s: check the rules of its configuration",
				schema.GroupVersionResource{Group: res.Group, Version: res.Version, Resource: res.Resource}.String()+subresourceSuffix(req.SubResource)))
		}
		return h.Admit(ctx, req)
	})
}

// kindGuard answers 400 to requests for another kind than want. Requests for a subresource
// whose object is another kind (pods/eviction carries an Eviction) are let through.
func kindGuard(want schema.GroupVersionKind, h Handler) Handler {
	return HandlerFunc(func(ctx context.Context, req *Request) Response {
		got := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
		if got != want && req.SubResource == "" {
			return badRequest(fmt.Sprintf("this webhook handles %s, not %s: check the rules of its configuration", want, got))
		}
		return h.Admit(ctx, req)
	})
}

func subresourceSuffix(sub string) string {
	if sub == "" {
		return ""
	}
	return "/" + sub
}
