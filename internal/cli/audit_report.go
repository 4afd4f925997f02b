package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/admitkit/admit/audit"
)

// auditReportOptions are how an audit's report is written and judged, in admit audit and admit
// audit merge alike: the formats, and the thresholds the exit code is decided by.
type auditReportOptions struct {
	output    string
	junitFile string
	htmlFile  string
	// Thresholds: the exit code is 1 when a count of new effects exceeds its own; -1 is none.
	maxNewDenials, maxNewFailures, maxNewWarnings, maxNewMutations int
	// maxUnreviewed: the exit code is 2 when more writes than this could not be reviewed;
	// maxRefusedShare when a larger share of the audited writes both configurations refuse.
	maxUnreviewed   int
	maxRefusedShare float64
}

// addFlags registers the report's flags.
func (o *auditReportOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	addAuditOutputFlag(cmd, &o.output)
	onceStringVar(f, &o.junitFile, "junit", "", "also write JUnit XML to this file: a test case per changed webhook and policy, failed when it newly denies or fails")
	onceStringVar(f, &o.htmlFile, "html", "", "also write a self-contained HTML report with charts to this file")
	f.IntVar(&o.maxNewDenials, "max-new-denials", 0, "exit 1 when more writes than this are newly denied (-1: no limit)")
	f.IntVar(&o.maxNewFailures, "max-new-failures", 0, "exit 1 when more writes than this have newly failing webhook calls (-1: no limit)")
	f.IntVar(&o.maxNewWarnings, "max-new-warnings", -1, "exit 1 when more writes than this get new warnings (-1: no limit)")
	f.IntVar(&o.maxNewMutations, "max-new-mutations", -1, "exit 1 when more objects than this are newly mutated (-1: no limit)")
	f.IntVar(&o.maxUnreviewed, "max-unreviewed", 0, "exit 2 when more writes than this cannot be reviewed (an unknown kind, an invalid object)")
	f.Float64Var(&o.maxRefusedShare, "max-refused-share", audit.DefaultRefusedShare, "exit 2 when a larger share (0 to 1) of the audited writes is refused under both the baseline and the proposal: their answer under the proposal is unknown (-1: no limit)")
	_ = cmd.MarkFlagFilename("junit", "xml")
	_ = cmd.MarkFlagFilename("html", "html")
}

// check refuses an unknown format and thresholds that are not counts or shares.
func (o *auditReportOptions) check() error {
	if checkOutput(o.output, outputMarkdown, outputPolicyReport, outputOpenReports) != nil {
		return fmt.Errorf("unknown output format %q: use text, json, yaml, markdown, policyreport or openreports", o.output)
	}
	for name, v := range map[string]int{"--max-new-denials": o.maxNewDenials, "--max-new-failures": o.maxNewFailures, "--max-new-warnings": o.maxNewWarnings, "--max-new-mutations": o.maxNewMutations} {
		if v < -1 {
			return fmt.Errorf("%s %d: give a count, or -1 for no limit", name, v)
		}
	}
	if s := o.maxRefusedShare; s != -1 && (s < 0 || s > 1) {
		return fmt.Errorf("--max-refused-share %g: give a share from 0 to 1, or -1 for no limit", s)
	}
	return nil
}

// finish writes the report in every form asked for and returns the exit code.
func (o *auditReportOptions) finish(streams Streams, report *audit.Report) error {
	verdict := report.Check(audit.Thresholds{NewDenials: o.maxNewDenials, NewFailures: o.maxNewFailures, NewWarnings: o.maxNewWarnings, NewMutations: o.maxNewMutations,
		Unreviewed: o.maxUnreviewed, RefusedShare: o.maxRefusedShare})
	if err := o.write(streams, report); err != nil {
		return err
	}
	code := map[audit.Verdict]int{audit.Pass: ExitOK, audit.Fail: ExitRejected, audit.BadInput: ExitBadInput, audit.Interrupted: ExitInterrupted}[verdict]
	if code == ExitOK {
		return nil
	}
	msg := strings.Join(report.Exceeded, "; ")
	if !report.Complete {
		msg = strings.TrimPrefix(msg+"; interrupted: the report covers the writes audited before Ctrl-C", "; ")
	}
	return &exitError{code: code, err: errors.New(msg)}
}

// write writes the report in the format asked for, and the JUnit and HTML files.
func (o *auditReportOptions) write(streams Streams, report *audit.Report) error {
	var err error
	switch format, reports := policyReportFormats[o.output]; {
	case o.output == outputText:
		err = report.WriteText(streams.Out)
	case o.output == outputMarkdown:
		err = report.WriteMarkdown(streams.Out)
	case reports:
		err = report.WritePolicyReports(streams.Out, format)
	default:
		err = writeStructured(streams.Out, o.output, report)
	}
	if err != nil {
		return err
	}
	if o.junitFile != "" {
		if err := writeFile(o.junitFile, report.WriteJUnit); err != nil {
			return fmt.Errorf("--junit %s: %w", o.junitFile, err)
		}
	}
	if o.htmlFile != "" {
		if err := writeFile(o.htmlFile, report.WriteHTML); err != nil {
			return fmt.Errorf("--html %s: %w", o.htmlFile, err)
		}
	}
	return nil
}
