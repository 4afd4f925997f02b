package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/internal/words"
)

// ShardPart is what a shard's report holds besides what every report has: what Merge needs to
// add the shards' reports up to the report of one run over the whole source.
type ShardPart struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Limit is the run's Options.Limit: every shard lists its own worst Limit writes, among
	// which are those the whole run lists.
	Limit int `json:"limit"`
	// ObjectPositions are the positions in the source of Objects' writes; UnreviewedPositions
	// and RefusedPositions those of the first write of each of Unreviewed and RefusedByBoth.
	ObjectPositions     []int64 `json:"objectPositions"`
	UnreviewedPositions []int64 `json:"unreviewedPositions,omitempty"`
	RefusedPositions    []int64 `json:"refusedPositions,omitempty"`
	// Notes are the report's notes but the counts of writes skipped and what was assumed,
	// which Skipped and Assumed give for Merge to add up.
	Notes   []string       `json:"notes,omitempty"`
	Skipped []SkippedCount `json:"skipped,omitempty"`
	Assumed []string       `json:"assumed,omitempty"`
}

// SkippedCount counts writes skipped for one reason.
type SkippedCount struct {
	Skipped
	Count int `json:"count"`
}

// fill sets a report's counts and lists from a tally; notes come first in its notes, then the
// writes skipped, then what the proposal's admissions assumed of the cluster. A shard's report
// also gets the part Merge reads.
func (t *tally) fill(rep *Report, notes, assumed []string, shard *Shard) {
	rep.Totals = t.totals
	rep.Steps = t.sortedSteps()
	rep.Namespaces = t.sortedNamespaces()
	objects, objectsAt, omitted := t.findings()
	rep.Objects, rep.OmittedObjects = objects, omitted
	unreviewed, unreviewedAt := t.unreviewed.sorted()
	refused, refusedAt := t.refused.sorted()
	rep.Unreviewed, rep.RefusedByBoth = unreviewed, refused
	rep.Notes = append(append([]string(nil), notes...), t.skippedNotes()...)
	for _, a := range assumed {
		rep.Notes = append(rep.Notes, "assumed "+a)
	}
	if len(rep.Changes) == 0 {
		rep.Notes = append(rep.Notes, "the proposal changes nothing in the baseline: every write is admitted alike")
	}
	if rep.Objects == nil {
		rep.Objects = []Finding{}
	}
	if shard != nil {
		rep.Shard = &ShardPart{Index: shard.Index, Count: shard.Count, Limit: t.limit,
			ObjectPositions: append([]int64{}, objectsAt...), UnreviewedPositions: unreviewedAt, RefusedPositions: refusedAt,
			Notes: notes, Skipped: t.sortedSkipped(), Assumed: assumed}
	}
}

// ShardReport is a shard's report, and what names it in Merge's errors (its file).
type ShardReport struct {
	Name   string
	Report *Report
}

// Merge adds the reports of every shard of one audit up to the report one run over the whole
// source gives: the same counts, the same worst-first lists under the same limit, the same notes
// — the same JSON, but for its time (the earliest shard's), its duration (the longest shard's)
// and Exceeded (Check sets it). Every shard of the count must be there once, of one audit: the
// same source, configurations and changes.
func Merge(shards []ShardReport) (*Report, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("no shard's report to merge")
	}
	byIndex, err := checkShards(shards)
	if err != nil {
		return nil, err
	}
	first := byIndex[0].Report
	out := &Report{APIVersion: first.APIVersion, Kind: first.Kind, Source: first.Source, Operation: first.Operation, Namespace: first.Namespace,
		Baseline: first.Baseline, Proposal: first.Proposal, Time: first.Time, Complete: true, Changes: first.Changes}
	t := newTally(first.Shard.Limit, first.Changes)
	// Every shard's listed writes are kept, and the worst Limit of them listed.
	t.keepAll = true
	var notes, assumed []string
	for _, s := range byIndex {
		r, part := s.Report, s.Report.Shard
		out.Complete = out.Complete && r.Complete
		if r.Time.Before(out.Time) {
			out.Time = r.Time
		}
		out.DurationSeconds = max(out.DurationSeconds, r.DurationSeconds)
		t.addReport(r)
		notes, assumed = union(notes, part.Notes), union(assumed, part.Assumed)
	}
	t.fill(out, notes, assumed, nil)
	return out, nil
}

// checkShards are the shards in order of their index, once each of one count, of one audit.
func checkShards(shards []ShardReport) ([]ShardReport, error) {
	first := shards[0]
	if first.Report.Shard == nil {
		return nil, fmt.Errorf("%s: not a shard's report (admit audit --shard writes one)", first.Name)
	}
	count := first.Report.Shard.Count
	byIndex := make([]ShardReport, count)
	for _, s := range shards {
		part := s.Report.Shard
		switch {
		case part == nil:
			return nil, fmt.Errorf("%s: not a shard's report (admit audit --shard writes one)", s.Name)
		case part.Count != count:
			return nil, fmt.Errorf("%s is shard %d/%d, %s shard %d/%d: the shards of one audit have one count", s.Name, part.Index, part.Count, first.Name, first.Report.Shard.Index, count)
		case part.Index < 0 || part.Index >= count:
			return nil, fmt.Errorf("%s: shard %d/%d is not one of %d", s.Name, part.Index, part.Count, count)
		case byIndex[part.Index].Report != nil:
			return nil, fmt.Errorf("shard %d/%d is given twice: %s and %s", part.Index, count, byIndex[part.Index].Name, s.Name)
		}
		if len(part.ObjectPositions) != len(s.Report.Objects) || len(part.UnreviewedPositions) != len(s.Report.Unreviewed) || len(part.RefusedPositions) != len(s.Report.RefusedByBoth) {
			return nil, fmt.Errorf("%s: its shard's positions do not match its lists (a report changed by hand?)", s.Name)
		}
		if why := differs(first.Report, s.Report); why != "" {
			return nil, fmt.Errorf("%s and %s are not shards of one audit: %s", first.Name, s.Name, why)
		}
		byIndex[part.Index] = s
	}
	var missing []string
	for i, s := range byIndex {
		if s.Report == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		which := "shard " + missing[0] + " is"
		if len(missing) > 1 {
			which = "shards " + strings.Join(missing, ", ") + " are"
		}
		return nil, fmt.Errorf("%s missing: the merge of %s would not be the whole audit", which, words.Plural(len(shards), "report", "reports"))
	}
	return byIndex, nil
}

// differs says how two shards' reports show different audits; "" when they do not.
func differs(a, b *Report) string {
	same := func(x, y any) bool {
		xj, _ := json.Marshal(x)
		yj, _ := json.Marshal(y)
		return string(xj) == string(yj)
	}
	switch {
	case a.Source != b.Source:
		return fmt.Sprintf("they audit %s and %s", a.Source, b.Source)
	case a.Baseline != b.Baseline || a.Proposal != b.Proposal || !same(a.Changes, b.Changes):
		return "their baselines or proposals differ"
	case a.Operation != b.Operation || a.Namespace != b.Namespace:
		return "they write the objects otherwise (--operation, -n)"
	case a.Shard.Limit != b.Shard.Limit:
		return fmt.Sprintf("their limits differ (%d and %d)", a.Shard.Limit, b.Shard.Limit)
	}
	return ""
}

// addReport adds a shard's report up.
func (t *tally) addReport(r *Report) {
	tot, sum := &t.totals, r.Totals
	tot.Read += sum.Read
	tot.Audited += sum.Audited
	tot.Unaffected += sum.Unaffected
	tot.Skipped += sum.Skipped
	tot.NewlyDenied += sum.NewlyDenied
	tot.NewlyFailing += sum.NewlyFailing
	tot.NewlyMutated += sum.NewlyMutated
	tot.NewlyWarned += sum.NewlyWarned
	tot.NewlyAllowed += sum.NewlyAllowed
	tot.Unreviewed += sum.Unreviewed
	tot.RefusedByBoth += sum.RefusedByBoth
	for _, s := range r.Steps {
		k := t.step(s.Step)
		if k.Change == "" {
			k.Change = s.Change
		}
		k.Matched += s.Matched
		k.Denied += s.Denied
		k.Failed += s.Failed
		k.Mutated += s.Mutated
		k.Warned += s.Warned
	}
	for _, n := range r.Namespaces {
		ns := t.namespaces[n.Namespace]
		if ns == nil {
			ns = &NamespaceCount{Namespace: n.Namespace}
			t.namespaces[n.Namespace] = ns
		}
		ns.Audited += n.Audited
		ns.Denied += n.Denied
		ns.Failing += n.Failing
		ns.Mutated += n.Mutated
		ns.Warned += n.Warned
		ns.Results.Pass += n.Results.Pass
		ns.Results.Fail += n.Results.Fail
		ns.Results.Warn += n.Results.Warn
		ns.Results.Error += n.Results.Error
		ns.Results.Skip += n.Results.Skip
	}
	part := r.Shard
	for i, f := range r.Objects {
		t.keep(f, part.ObjectPositions[i])
	}
	// The findings a shard counted but did not list are counted, not kept.
	t.found += r.OmittedObjects
	for i, u := range r.Unreviewed {
		t.unreviewed.add(u.Reason, u.First, part.UnreviewedPositions[i], u.Count)
	}
	for i, u := range r.RefusedByBoth {
		t.refused.add(u.Reason, u.First, part.RefusedPositions[i], u.Count)
	}
	for _, s := range part.Skipped {
		t.skipped[s.Skipped] += s.Count
	}
}

// union is a with b's members it lacks, in b's order.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// ReadReport reads a report as admit audit -o json or -o yaml writes it; a field it does not
// know is an error, since a report of another version or another command would merge wrong.
func ReadReport(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("empty: not an audit report")
	}
	if data, err = yaml.YAMLToJSON(data); err != nil {
		return nil, fmt.Errorf("neither JSON nor YAML: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rep Report
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("not an audit report of this version of admit: %w", err)
	}
	if rep.APIVersion != reportAPIVersion || rep.Kind != reportKind {
		return nil, fmt.Errorf("a %s %s, not an audit report (%s %s)", rep.APIVersion, rep.Kind, reportAPIVersion, reportKind)
	}
	return &rep, nil
}

// ReadShardReports reads the shards' reports paths name: files, and the .json, .yaml and .yml
// files of directories.
func ReadShardReports(args []string) ([]ShardReport, error) {
	var paths []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			paths = append(paths, arg)
			continue
		}
		entries, err := os.ReadDir(arg)
		if err != nil {
			return nil, err
		}
		before := len(paths)
		for _, e := range entries {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".json", ".yaml", ".yml":
				if e.Type().IsRegular() {
					paths = append(paths, filepath.Join(arg, e.Name()))
				}
			}
		}
		if len(paths) == before {
			return nil, fmt.Errorf("%s: no report in the directory (.json, .yaml or .yml files)", arg)
		}
	}
	var shards []ShardReport
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		report, err := ReadReport(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		shards = append(shards, ShardReport{Name: path, Report: report})
	}
	if len(shards) == 0 {
		return nil, errors.New("no report to merge")
	}
	return shards, nil
}
