package audit

import (
	"context"
	"slices"
	"strings"

	"github.com/admitkit/admit/clusterstate"
	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// Dump is a dump of a cluster's objects — kubectl get -A -o yaml|json, multi-document YAML,
// directories — each audited as its next write. It is read twice (its state, then its
// writes), a batch of documents at a time: standard input among its inputs must be spooled
// (manifest.Inputs.Spool).
type Dump struct {
	Inputs *manifest.Inputs
	// Paths name it in the report.
	Paths []string
}

// Name is the dump's paths.
func (d *Dump) Name() string { return strings.Join(d.Paths, ", ") }

// Scan counts the dump's objects and their namespaces, and keeps the state admission reads.
func (d *Dump) Scan(ctx context.Context, opts ScanOptions) (Scan, error) {
	var out Scan
	namespaces := map[string]bool{}
	collect := clusterstate.NewCollector(opts.ParamKinds)
	err := d.Inputs.Each(func(o manifest.Object) error {
		out.Writes++
		if ns := o.Object.GetNamespace(); ns != "" {
			namespaces[ns] = true
		}
		if opts.State {
			collect.Add(o.Object)
		}
		return nil
	})
	if err != nil {
		return Scan{}, err
	}
	out.State, out.Namespaces = collect.State(), sortedKeys(namespaces)
	return out, nil
}

// Writes audits every object of the dump but the configurations of admission, which are never
// sent to webhooks or policies.
func (d *Dump) Writes(ctx context.Context, sink Sink) error {
	var position int64
	shard := sink.Shard()
	return d.Inputs.Each(func(o manifest.Object) error {
		position++
		switch {
		case !shard.Owns(sink.KeyOf(o.Object)):
			return nil
		case resources.IsAdmissionConfiguration(o.Object.GroupVersionKind().GroupKind()):
			sink.Skip(configurationSkipped())
			return nil
		}
		return sink.AddStored(review.Input{Source: o.Source.String(), Object: o.Object}, position-1)
	})
}

// configurationSkipped is why a dump's webhook configurations and policies are not audited.
func configurationSkipped() Skipped {
	return Skipped{
		One: "webhook configuration or admission policy", Many: "webhook configurations and admission policies",
		Why: " of the dump: not audited, as they are never sent to webhooks or policies; give them with --baseline to compare with them",
	}
}

// sortedKeys are a set's members in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
