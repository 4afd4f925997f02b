package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/admitkit/admit/audit"
)

// auditMergeOptions are admit audit merge's flags: how the merged report is written and judged.
type auditMergeOptions struct {
	report auditReportOptions
	// store: the cluster's ConfigMaps and Policy Reports (audit_store.go).
	store mergeStoreFlags
}

func newAuditMergeCommand(streams Streams) *cobra.Command {
	o := &auditMergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge (REPORT... | --from-configmaps [NAMESPACE/]NAME)",
		Short: "Add the reports of an audit's shards up to the report of the whole audit",
		Long: `Read the JSON or YAML reports of every shard of one audit (admit audit --shard I/N -o json) —
files, or directories of them — and write the report one run over the whole source would have
written: the same counts, the same worst-first lists under the same --limit, the same exit code
under the same thresholds. A shard missing or given twice, or reports of different audits, are
an error naming them.

In a cluster (deploy/audit), the shards of an Indexed Job store their reports in ConfigMaps
(admit audit --to-configmap NAME): --from-configmaps NAME reads them back, --to-configmap stores
the merged report's JSON and HTML page in a ConfigMap, and --apply-policy-reports applies its
findings as Policy Reports.

Exit codes as admit audit's: 0 nothing new beyond the thresholds, 1 new denials or failures (or
warnings, mutations) beyond them, 2 bad input, a shard missing, or writes that could not be
reviewed, 130 when a shard was interrupted.`,
		Example: `  # four shards, then their merge as the CI gate
  for i in 0 1 2 3; do admit audit --audit-log logs/ --webhooks proposed/ --shard $i/4 -o json > shard-$i.json & done; wait
  admit audit merge shard-*.json --junit audit.xml

  # the shards an Indexed Job stored in ConfigMaps (deploy/audit), merged in the cluster
  admit audit merge --in-cluster --from-configmaps admit-audit --to-configmap admit-audit-report --apply-policy-reports auto`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.report.check(); err != nil {
				return badInput(err)
			}
			if err := o.store.check(args); err != nil {
				return badInput(err)
			}
			ctx := cmd.Context()
			conn, err := o.store.connect(streams.getenv)
			if err != nil {
				return badInput(err)
			}
			var shards []audit.ShardReport
			if len(args) > 0 {
				if shards, err = audit.ReadShardReports(args); err != nil {
					return badInput(err)
				}
			}
			stored, err := o.store.shards(ctx, conn)
			if err != nil {
				return badInput(err)
			}
			report, err := audit.Merge(append(shards, stored...))
			if err != nil {
				return badInput(err)
			}
			verdict := o.report.finish(streams, report)
			var ee *exitError
			if verdict != nil && !errors.As(verdict, &ee) {
				return verdict
			}
			// Stored and applied whatever the verdict, which Check has written in the report.
			if err := o.store.keep(ctx, conn, streams, report); err != nil {
				return badInput(err)
			}
			return verdict
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"json", "yaml"}, cobra.ShellCompDirectiveFilterFileExt
		},
	}
	o.report.addFlags(cmd)
	o.store.addFlags(cmd)
	return cmd
}
