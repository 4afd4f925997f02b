package review

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/celconditions"
	"github.com/admitkit/admit/dispatch/live"
	"github.com/admitkit/admit/engine"
)

// Admit admits every outcome's request — the chain (unless WebhooksOnly) and the dispatcher
// built once for all of them — with bounded concurrency; each result stays at its outcome.
// Outcomes without a request are left as they are. Config.Progress is told how many are done,
// in order. The error is the user's configuration's (webhooks or a cluster state the chain
// refuses), or ctx's once it is done.
func (s *Session) Admit(ctx context.Context, outcomes []*Outcome) error {
	return s.AdmitEach(ctx, outcomes, nil)
}

// AdmitEach admits as Admit does, and calls each with every outcome, in order, as soon as it and
// those before it are decided: a caller that reads each result once (a test suite checking its
// cases) may drop it when each returns, and then holds no more than a window of results at once.
// each may be nil. Once ctx is done, the outcomes not yet handed to each are left without a
// result, and ctx's error is returned.
func (s *Session) AdmitEach(ctx context.Context, outcomes []*Outcome, each func(*Outcome)) error {
	plan := s.Plan()
	for _, o := range outcomes {
		plan.Take(o)
	}
	var d admitter
	if plan.Runnable() > 0 {
		var closeChain func()
		var err error
		if d, closeChain, err = s.pipeline(ctx, plan.reviewed(), plan.namespaceList()); err != nil {
			return err
		}
		defer closeChain()
	}
	all := func(yield func(*Outcome) error) error {
		for _, o := range outcomes {
			if err := yield(o); err != nil {
				return err
			}
		}
		return nil
	}
	_, _, err := s.inOrder(ctx, d, all, func(o *Outcome) error {
		if each != nil {
			each(o)
		}
		return nil
	}, func(n int) {
		if s.cfg.Progress != nil {
			s.cfg.Progress(n, len(outcomes))
		}
	})
	return err
}

// admitter admits one request: a Dispatcher (webhooks alone) or an engine.Pipeline (the chain's
// steps with the webhooks among them).
type admitter interface {
	Admit(ctx context.Context, req *engine.Request) (*engine.Result, error)
}

// pipeline builds what admits the requests: the webhooks, and the chain's steps around them
// unless WebhooksOnly (chain.Steps.Pipeline). reviewed are the reviewed objects the others'
// admission reads (Plan.reviewed); namespaces, those the reviewed objects live in, exist unless
// the state is whole (then the caller gives none). close stops the chain.
func (s *Session) pipeline(ctx context.Context, reviewed []*unstructured.Unstructured, namespaces []string) (_ admitter, close func(), err error) {
	opts := dispatch.Options{
		Mutating: s.cfg.Mutating, Validating: s.cfg.Validating, Resources: s.mapper,
		Conditions: celconditions.Compiler(nil), ServiceResolver: s.cfg.ServiceResolver, Transport: s.cfg.Transport,
		MaxRequestBodyBytes: s.cfg.APIServer.MaxRequestBodyBytes, Now: s.cfg.Now,
	}
	if s.cfg.WebhooksOnly {
		opts.Namespaces = s.staticNamespaces()
		authz, err := chain.NewAuthorizer(s.state(reviewed))
		if err != nil {
			return nil, nil, fmt.Errorf("the cluster state: %w", err)
		}
		opts.Conditions = celconditions.Compiler(authz)
		s.assumed = authz.Assumed
		if opts.Converter, err = chain.NewConverter(s.crds, s.conversion()); err != nil {
			return nil, nil, err
		}
		d, err := dispatch.New(opts)
		if err != nil {
			return nil, nil, err
		}
		return d, func() {}, nil
	}
	// One moment for the whole run: every object created at it, whatever the order.
	now := s.cfg.Now()
	c, err := chain.New(ctx, chain.Config{
		Objects: s.state(reviewed), Namespaces: namespaces, CRDs: s.crds, Conversion: s.conversion(),
		FieldManager: s.cfg.FieldManager, ServiceCIDR: s.cfg.APIServer.ServiceCIDR,
		DisallowPrivileged:     s.cfg.APIServer.DisallowPrivileged,
		EnableAdmissionPlugins: s.cfg.APIServer.EnableAdmissionPlugins, DisableAdmissionPlugins: s.cfg.APIServer.DisableAdmissionPlugins,
		AdmissionControlConfigFile: s.cfg.APIServer.AdmissionControlConfigFile,
		Now:                        func() time.Time { return now },
		NewUID:                     objectUID,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("the cluster state: %w", err)
	}
	s.assumed = c.Assumed
	// The webhooks' matchConditions ask the authorizer the chain's policies ask.
	opts.Conditions = celconditions.Compiler(c.Authorizer())
	steps := c.Steps()
	opts.Codec, opts.Converter = steps.Codec, steps.Converter
	opts.Namespaces = live.ListerNamespaces{Lister: steps.Namespaces, Client: steps.Client}
	webhooks, err := dispatch.NewWebhooks(opts)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	pipeline := steps.Pipeline(webhooks.Mutating(), webhooks.Validating())
	pipeline.MaxRequestBodyBytes, pipeline.Now = opts.MaxRequestBodyBytes, opts.Now
	return pipeline, c.Close, nil
}

// objectUID is the uid of a created object, derived from what it is: the same on every run and
// at any concurrency, distinct for distinct objects.
func objectUID(req *engine.Request) string {
	name := req.Name
	if name == "" {
		name = req.GeneratedName
	}
	key := req.Kind.GroupKind().String() + "/" + req.Namespace + "/" + name
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("admit.dev/review/"+key)).String()
}
