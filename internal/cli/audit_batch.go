package cli

import (
	"context"
	"fmt"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

// auditDump reads the dump's objects and audits them a batch at a time.
func (r *auditRun) auditDump(dump *manifest.Inputs) error {
	skipped := 0
	{
		err := dump.Each(func(o manifest.Object) error {
			in := review.Input{Source: o.Source.String(), Object: o.Object}
			if review.IsPolicy(in.Object) || isWebhookConfiguration(in.Object) {
				skipped++
				r.tally.totals.Skipped++
				r.read.Add(1)
				return nil
			}
			return r.add(r.objectItem(in))
		})
		if err != nil {
			return err
		}
	}
	if skipped > 0 {
		r.notes = append(r.notes, fmt.Sprintf("%s of the dump: not audited, as they are never sent to webhooks or policies; give them with --baseline to compare with them",
			plural(skipped, "webhook configuration or admission policy", "webhook configurations and admission policies")))
	}
	return nil
}

func isWebhookConfiguration(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return gvk.Group == "admissionregistration.k8s.io" && (gvk.Kind == "MutatingWebhookConfiguration" || gvk.Kind == "ValidatingWebhookConfiguration")
}

// objectItem is a stored object's next write: an update that changes nothing, or its creation
// again with what the apiserver sets taken away.
func (r *auditRun) objectItem(in review.Input) auditItem {
	it := auditItem{object: in, write: r.write}
	if ns := in.Object.GetNamespace(); ns != "" {
		it.write.Namespace = ns
	}
	if r.write.Operation == admissionv1.Update {
		it.old = &review.Input{Source: in.Source, Object: in.Object}
		return it
	}
	obj := in.Object.DeepCopy()
	for _, field := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		unstructured.RemoveNestedField(obj.Object, "metadata", field)
	}
	unstructured.RemoveNestedField(obj.Object, "status")
	it.object = review.Input{Source: in.Source, Object: obj}
	return it
}

// auditLog replays the log's writes a batch at a time.
func (r *auditRun) auditLog() error {
	replay := newLogReplay(r.o.auditLog, r.mapper, r.matcher.matchesResource, r.write.DryRun)
	err := eachAuditEvent(r.o.auditLog, r.o.auditLog, func(line int, ev *auditEvent) error {
		it, skip, ok := replay.item(line, ev)
		switch {
		case !ok:
			return nil
		case skip != "" && !r.matcher.matches(eventOperation(ev.Verb), ev.gvr(), ev.ObjectRef.Subresource):
			// No changed step could match it: whether it could be replayed does not matter.
			r.tally.totals.Unaffected++
			r.read.Add(1)
			return nil
		case skip != "":
			replay.skipped[skip]++
			r.tally.totals.Skipped++
			r.read.Add(1)
			return nil
		}
		if it.write.FieldManager == "" {
			it.write.FieldManager = r.o.session.fieldManager
		}
		return r.add(it)
	})
	for _, why := range sortedKeys(replay.skipped) {
		r.notes = append(r.notes, fmt.Sprintf("%s not replayed: %s", plural(replay.skipped[why], "write", "writes"), why))
	}
	return err
}

// auditCluster lists every served resource a changed step can match, a page at a time.
func (r *auditRun) auditCluster(cluster *auditCluster, served []servedResource) error {
	op := admissionregistrationv1.OperationType(r.write.Operation)
	resources, skipped := auditedResources(served, func(gvr schema.GroupVersionResource) bool { return r.matcher.matches(op, gvr, "") }, r.o.namespace != "")
	r.notes = append(r.notes, skipped...)
	for _, res := range resources {
		err := cluster.each(r.ctx, res, r.o.namespace, func(page []unstructured.Unstructured) error {
			for _, in := range liveInputs(cluster.host, page) {
				if err := r.add(r.objectItem(in)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			if r.ctx.Err() != nil {
				return errInterrupted
			}
			return err
		}
	}
	return nil
}

// add takes one write; a full batch is audited before the next is read.
func (r *auditRun) add(it auditItem) error {
	if r.ctx.Err() != nil {
		return errInterrupted
	}
	if r.o.namespace != "" && !r.inNamespace(it) {
		return nil
	}
	r.batch = append(r.batch, it)
	if len(r.batch) >= r.o.batchSize {
		return r.flush()
	}
	return nil
}

// inNamespace reports a write of -n's namespace: namespaced, and there.
func (r *auditRun) inNamespace(it auditItem) bool {
	if it.gvr != nil {
		return it.write.Namespace == r.o.namespace
	}
	res, err := r.mapper.ResourceFor(it.object.Object.GroupVersionKind())
	if err != nil {
		return it.object.Object.GetNamespace() == r.o.namespace
	}
	return res.Namespaced && it.object.Object.GetNamespace() == r.o.namespace
}

// affected reports whether a changed step may match the write.
func (r *auditRun) affected(it auditItem) bool {
	op := admissionregistrationv1.OperationType(it.write.Operation)
	if it.gvr != nil {
		return r.matcher.matches(op, *it.gvr, it.write.SubResource)
	}
	gvk := it.object.Object.GroupVersionKind()
	res, err := r.mapper.ResourceFor(gvk)
	if err != nil {
		// An unknown kind: admitted when a changed step may match its group, to say why it
		// cannot be reviewed.
		return r.matcher.matchesGroup(gvk.Group)
	}
	return r.matcher.matches(op, res.GVR, it.write.SubResource)
}

// outcome builds a write's request in session; a problem with it is the outcome's Err.
func outcome(session *review.Session, it auditItem) *review.Outcome {
	var olds []review.Input
	if it.old != nil {
		olds = []review.Input{*it.old}
	}
	outcomes, err := session.Requests([]review.Input{it.object}, olds, it.write)
	if err != nil {
		return &review.Outcome{Source: it.object.Source, Object: it.object.Object, Err: err}
	}
	return outcomes[0]
}

// flush audits the batch: each write admitted under both configurations at once, compared.
func (r *auditRun) flush() error {
	items := r.batch
	r.batch = nil
	var kept []auditItem
	var base, prop []*review.Outcome
	for _, it := range items {
		if !r.affected(it) {
			r.tally.totals.Unaffected++
			continue
		}
		kept = append(kept, it)
		base = append(base, outcome(r.base.session, it))
		prop = append(prop, outcome(r.prop.session, it))
	}
	var wg sync.WaitGroup
	wg.Go(func() { r.base.stream.Admit(context.WithoutCancel(r.ctx), base) })
	r.prop.stream.Admit(context.WithoutCancel(r.ctx), prop)
	wg.Wait()
	for i, it := range kept {
		b, p := base[i], prop[i]
		switch {
		case p.Err != nil:
			r.tally.addUnreviewed(it.object.Source, p.Err)
		case b.Err != nil:
			r.tally.addUnreviewed(it.object.Source, b.Err)
		default:
			found := compareOutcomes(b, p, r.changed)
			found.Origin = it.origin
			r.tally.add(found, b.Result, p.Result)
		}
	}
	r.read.Add(int64(len(items)))
	if r.ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// showProgress rewrites one line on the terminal with how far the audit is (see progressLine).
func (r *auditRun) showProgress() (stop func()) {
	w := r.o.progress
	if w == nil {
		return func() {}
	}
	return progressLine(w, func(elapsed time.Duration) string {
		of := ""
		if total := r.total.Load(); total > 0 {
			of = fmt.Sprintf(" of %d", total)
		}
		return fmt.Sprintf("auditing: %d%s (%s; Ctrl-C reports what is done)", r.read.Load(), of, elapsed.Round(time.Second))
	})
}
