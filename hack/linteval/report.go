package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
)

// projectResult is what the evaluation found for one project.
type projectResult struct {
	Project Project
	// Err says why the project could not be evaluated (its files could not be read, admit lint
	// crashed); it then has no findings.
	Err error
	// Notes are what was left out or what admit lint complained about.
	Notes []string
	// Renamed maps the files admit lint read under another name to their paths in the
	// repository (see materialized.Renamed).
	Renamed  map[string]string
	Findings []judgedFinding
	// Stale are the project's judgments that match none of its findings.
	Stale []Judgment
	// Gone are the verdicts on findings a change removed (Judgment.GoneAfter).
	Gone []Judgment
}

// tally counts verdicts.
type tally struct {
	Real, Minor, Noise, FalsePositive, Unjudged int
}

func (t *tally) add(v Verdict) {
	switch v {
	case Real:
		t.Real++
	case Minor:
		t.Minor++
	case Noise:
		t.Noise++
	case FalsePositive:
		t.FalsePositive++
	default:
		t.Unjudged++
	}
}

func (t tally) judged() int { return t.Real + t.Minor + t.Noise + t.FalsePositive }

// plus is the two tallies together.
func (t tally) plus(u tally) tally {
	return tally{Real: t.Real + u.Real, Minor: t.Minor + u.Minor, Noise: t.Noise + u.Noise,
		FalsePositive: t.FalsePositive + u.FalsePositive, Unjudged: t.Unjudged + u.Unjudged}
}

func (t tally) total() int { return t.judged() + t.Unjudged }

// precision is the share of the judged findings worth acting on, (real+minor)/judged; ok is
// false when nothing is judged, where it means nothing. Unjudged findings are left out rather
// than guessed at: the report shows how many there are.
func (t tally) precision() (p float64, ok bool) {
	if t.judged() == 0 {
		return 0, false
	}
	return float64(t.Real+t.Minor) / float64(t.judged()), true
}

func (t tally) precisionText() string {
	p, ok := t.precision()
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", 100*p, t.Real+t.Minor, t.judged())
}

// severityCounts counts a project's findings by severity.
type severityCounts struct {
	Errors, Warnings, Infos int
}

func countSeverities(findings []judgedFinding) severityCounts {
	var c severityCounts
	for _, f := range findings {
		switch f.Severity {
		case severityError:
			c.Errors++
		case severityWarning:
			c.Warnings++
		default:
			c.Infos++
		}
	}
	return c
}

// tallies counts the verdicts of the warnings and errors, over all and by rule (keyed
// "B07 single-replica").
func tallies(results []projectResult) (all tally, byRule map[string]*tally) {
	byRule = map[string]*tally{}
	for _, r := range results {
		for _, f := range r.Findings {
			if !f.counts() {
				continue
			}
			all.add(f.Verdict)
			key := f.Rule + " " + f.Name
			if byRule[key] == nil {
				byRule[key] = &tally{}
			}
			byRule[key].add(f.Verdict)
		}
	}
	return all, byRule
}

// corpusSet is a part of the corpus measured on its own: the projects the rules were tuned on
// (Unseen empty), or those added unseen for one change. Precision on the first flatters the
// rules, which were changed until their findings there were worth acting on; the second says
// what a user who has never been looked at gets.
type corpusSet struct {
	Unseen   string
	Projects int
	All      tally
	// Before and After split an unseen set's verdicts: given before the rules changed, or
	// after (findings the change made). Gone are the verdicts on the findings the change
	// removed: with Before, the set as it was judged, before the change.
	Before, After, Gone tally
}

func (s corpusSet) label() string {
	if s.Unseen == "" {
		return "tuned on"
	}
	return "unseen for " + s.Unseen
}

// corpusSets tallies the warnings and errors by part of the corpus: the tuned projects first,
// then each unseen set in the order of the corpus. Projects that could not be evaluated count
// as projects with no findings.
func corpusSets(results []projectResult) []corpusSet {
	var sets []corpusSet
	index := map[string]int{}
	for _, r := range results {
		key := r.Project.Unseen
		i, ok := index[key]
		if !ok {
			i = len(sets)
			index[key] = i
			sets = append(sets, corpusSet{Unseen: key})
		}
		s := &sets[i]
		s.Projects++
		for _, j := range r.Gone {
			s.Gone.add(j.Verdict)
		}
		for _, f := range r.Findings {
			if !f.counts() {
				continue
			}
			s.All.add(f.Verdict)
			switch {
			case key == "":
			case f.AfterChange:
				s.After.add(f.Verdict)
			default:
				s.Before.add(f.Verdict)
			}
		}
	}
	slices.SortStableFunc(sets, func(x, y corpusSet) int {
		if (x.Unseen == "") != (y.Unseen == "") {
			if x.Unseen == "" {
				return -1
			}
			return 1
		}
		return 0
	})
	return sets
}

// sortFindings orders findings for the report: the most severe first, then by rule and by
// where they are, so that the report only changes when the findings do.
func sortFindings(findings []judgedFinding) {
	sort.SliceStable(findings, func(a, b int) bool {
		x, y := findings[a], findings[b]
		if rx, ry := severityRank(x.Severity), severityRank(y.Severity); rx != ry {
			return rx < ry
		}
		for _, pair := range [][2]string{
			{x.Rule, y.Rule}, {x.Configuration, y.Configuration}, {x.Webhook, y.Webhook},
			{x.Field, y.Field}, {x.Kind, y.Kind}, {x.File, y.File},
		} {
			if pair[0] != pair[1] {
				return pair[0] < pair[1]
			}
		}
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		return x.Message < y.Message
	})
}

func severityRank(s string) int {
	switch s {
	case severityError:
		return 0
	case severityWarning:
		return 1
	case severityInfo:
		return 2
	}
	return 3
}

// reportOptions are what the report needs beyond the results.
type reportOptions struct {
	// Scrub removes machine-specific text (the cache and mirror directories) from error
	// messages and notes, so that the report is the same wherever it is generated.
	Scrub *strings.Replacer
	// Analysis is hand-written Markdown placed after the verdicts: what the numbers mean,
	// which outage patterns are reported, what lint still misses.
	Analysis string
}

// writeReport writes docs/lint-evaluation.md.
func writeReport(w io.Writer, results []projectResult, opts reportOptions) error {
	var b strings.Builder
	writeIntro(&b, results)
	writeProjectTable(&b, results)
	writeVerdictTable(&b, results)
	if opts.Analysis != "" {
		b.WriteString("\n" + strings.TrimSpace(opts.Analysis) + "\n\n")
	}
	b.WriteString("## Findings by project\n")
	for _, r := range results {
		writeProjectSection(&b, r, opts)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeIntro(b *strings.Builder, results []projectResult) {
	b.WriteString("<!-- generated by go run ./hack/linteval; do not edit -->\n\n")
	b.WriteString("# admit lint on real projects' webhook manifests\n\n")
	fmt.Fprintf(b, "How useful are `admit lint`'s findings on the webhook manifests projects publish? "+
		"Each of the %d projects below is linted alone, as its users would lint it: "+
		"`admit lint -R --severity info` on the files it ships, at the pinned commit, and nothing else. "+
		"The list is `hack/linteval/corpus.yaml`; the files are fetched at evaluation time and not committed. "+
		"Every warning and error is judged by hand in `hack/linteval/judgments.yaml`: "+
		"**real** (would hurt a cluster, or is a real mistake worth fixing now), "+
		"**minor** (worth acting on, low impact), **noise** (true, but not worth acting on) or "+
		"**false-positive** (wrong). Precision is (real + minor) / judged warnings and errors: "+
		"the share of the findings that deserve a user's time. Info findings are listed, not counted.\n\n", len(results))
	b.WriteString("Projects marked *unseen* were added for a change to the rules and judged before any rule changed for them; " +
		"their precision is reported apart (see [By part of the corpus](#by-part-of-the-corpus)), since the rules were " +
		"tuned on the others until their findings were worth acting on. A finding that a change then made on an " +
		"unseen project is judged after it, and counted apart again.\n\n")
	b.WriteString("To re-run it after a change to the rules: `make lint-eval`, which rewrites this page. " +
		"`make lint-eval LINTEVAL_FLAGS=--print-unjudged` prints the warnings and errors without a judgment " +
		"as entries to complete and paste into `judgments.yaml`; with `--check` it fails while any is left " +
		"or a judgment matches no finding.\n\n")
}

func writeProjectTable(b *strings.Builder, results []projectResult) {
	b.WriteString("## Projects\n\n")
	b.WriteString("| Project | What | Errors | Warnings | Info |\n|---|---|--:|--:|--:|\n")
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(b, "| %s | %s | failed | failed | failed |\n", projectLinks(r.Project)+unseenMark(r.Project), cell(r.Project.What))
			continue
		}
		c := countSeverities(r.Findings)
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d |\n", projectLinks(r.Project)+unseenMark(r.Project), cell(r.Project.What), c.Errors, c.Warnings, c.Infos)
	}
	b.WriteString("\n")
}

// unseenMark marks the projects added unseen for a change.
func unseenMark(p Project) string {
	if p.Unseen == "" {
		return ""
	}
	return " *(unseen, " + cell(p.Unseen) + ")*"
}

// projectLinks links a project's name to its files on GitHub, at the commit.
func projectLinks(p Project) string {
	if len(p.Paths) == 1 {
		return fmt.Sprintf("[%s](%s)", cell(p.Name), treeURL(p, p.Paths[0]))
	}
	links := make([]string, len(p.Paths))
	for i, q := range p.Paths {
		links[i] = fmt.Sprintf("[%s](%s)", cell(q), treeURL(p, q))
	}
	return cell(p.Name) + ": " + strings.Join(links, ", ")
}

func treeURL(p Project, q string) string {
	return fmt.Sprintf("https://github.com/%s/tree/%s/%s", p.Repo, p.Commit, q)
}

func writeVerdictTable(b *strings.Builder, results []projectResult) {
	all, byRule := tallies(results)
	b.WriteString("## Verdicts\n\n")
	fmt.Fprintf(b, "Over the %d warnings and errors: %d judged, %d unjudged; precision %s.\n\n",
		all.total(), all.judged(), all.Unjudged, all.precisionText())
	b.WriteString("| Rule | Findings | Real | Minor | Noise | False positive | Unjudged | Precision |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, rule := range slices.Sorted(maps.Keys(byRule)) {
		writeTallyRow(b, cell(rule), *byRule[rule])
	}
	writeTallyRow(b, "**All**", all)
	b.WriteString("\n")
	writeSetTable(b, results)
}

// writeSetTable writes the precision of each part of the corpus, and for unseen projects how
// much of it rests on verdicts given before the rules changed.
func writeSetTable(b *strings.Builder, results []projectResult) {
	sets := corpusSets(results)
	if len(sets) < 2 && (len(sets) == 0 || sets[0].Unseen == "") {
		return
	}
	b.WriteString("### By part of the corpus\n\n")
	b.WriteString("| Projects | Count | Findings | Real | Minor | Noise | False positive | Unjudged | Precision |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range sets {
		writeSetRow(b, s.label(), s.Projects, s.All)
		if s.Unseen == "" {
			continue
		}
		if s.Gone.total() > 0 {
			writeSetRow(b, "› as judged before the change, with the findings it removed", -1, s.Before.plus(s.Gone))
		}
		if s.After.total() == 0 {
			continue // no change made findings there: every verdict was given before
		}
		writeSetRow(b, "› verdicts given before the change", -1, s.Before)
		writeSetRow(b, "› findings the change made, judged after it", -1, s.After)
	}
	b.WriteString("\n")
}

func writeSetRow(b *strings.Builder, label string, projects int, t tally) {
	count := ""
	if projects >= 0 {
		count = fmt.Sprint(projects)
	}
	fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %d | %d | %s |\n",
		cell(label), count, t.total(), t.Real, t.Minor, t.Noise, t.FalsePositive, t.Unjudged, t.precisionText())
}

func writeTallyRow(b *strings.Builder, label string, t tally) {
	fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %s |\n",
		label, t.total(), t.Real, t.Minor, t.Noise, t.FalsePositive, t.Unjudged, t.precisionText())
}

func writeProjectSection(b *strings.Builder, r projectResult, opts reportOptions) {
	p := r.Project
	fmt.Fprintf(b, "\n### %s\n\n", p.Name)
	if p.Unseen != "" {
		fmt.Fprintf(b, "Unseen for %s: judged before any rule changed for it.\n\n", cell(p.Unseen))
	}
	fmt.Fprintf(b, "%s: %s at [%s](https://github.com/%s/tree/%s).\n", cell(p.What), p.Repo, p.Commit[:12], p.Repo, p.Commit)
	if r.Err != nil {
		fmt.Fprintf(b, "\n**Not evaluated**: %s\n", cell(scrub(opts, r.Err.Error())))
		return
	}
	writeNotes(b, r, opts)
	var counted, infos []judgedFinding
	for _, f := range r.Findings {
		if f.counts() {
			counted = append(counted, f)
		} else {
			infos = append(infos, f)
		}
	}
	if len(counted) == 0 {
		b.WriteString("\nNo warnings or errors.\n")
	} else {
		b.WriteString("\n| Severity | Rule | Where | Message | Verdict | Reason |\n|---|---|---|---|---|---|\n")
		for _, f := range counted {
			verdict := string(f.Verdict)
			if f.AfterChange {
				verdict += " (after the change)"
			}
			fmt.Fprintf(b, "| %s | %s %s | %s | %s | %s | %s |\n", f.Severity, f.Rule, f.Name,
				where(r, f), cell(firstSentence(f.Message)), verdict, cell(f.Reason))
		}
	}
	writeInfos(b, r, infos)
}

func writeNotes(b *strings.Builder, r projectResult, opts reportOptions) {
	if len(r.Notes) == 0 && len(r.Stale) == 0 {
		return
	}
	b.WriteString("\n")
	for _, n := range r.Notes {
		fmt.Fprintf(b, "- Note: %s\n", cell(scrub(opts, n)))
	}
	for _, j := range r.Stale {
		fmt.Fprintf(b, "- Stale judgment (matches no finding): %s\n", cell(j.subject()))
	}
}

// writeInfos lists the info findings grouped by rule: they are hints, read by the dozen, and a
// rule's messages differ little.
func writeInfos(b *strings.Builder, r projectResult, infos []judgedFinding) {
	if len(infos) == 0 {
		return
	}
	byRule := map[string][]string{}
	for _, f := range infos {
		item := where(r, f)
		if f.Verdict != Unjudged {
			item += fmt.Sprintf(" (%s: %s)", f.Verdict, cell(f.Reason))
		}
		key := f.Rule + " " + f.Name
		byRule[key] = append(byRule[key], item)
	}
	b.WriteString("\nInfo:\n\n")
	for _, rule := range slices.Sorted(maps.Keys(byRule)) {
		fmt.Fprintf(b, "- %s (%d): %s\n", rule, len(byRule[rule]), strings.Join(byRule[rule], "; "))
	}
}

// where names a finding's configuration, webhook and field, linked to the file and line on
// GitHub.
func where(r projectResult, f judgedFinding) string {
	parts := []string{fmt.Sprintf("`%s` (%s)", cell(f.Configuration), shortKind(f.Kind))}
	if f.Webhook != "" {
		parts = append(parts, fmt.Sprintf("`%s`", cell(f.Webhook)))
	}
	if f.Field != "" {
		parts = append(parts, fmt.Sprintf("`%s`", cell(f.Field)))
	}
	s := strings.Join(parts, " › ")
	if f.File == "" {
		return s
	}
	file := f.File
	if orig, ok := r.Renamed[file]; ok {
		file = orig
	}
	if dir, built := strings.CutSuffix(file, "/"+kustomizeOutput); built {
		// The build's output is not in the repository: link the kustomization it came from.
		label := fmt.Sprintf("kustomize build %s", dir)
		if f.Line > 0 {
			label += fmt.Sprintf(", line %d", f.Line)
		}
		return fmt.Sprintf("%s ([%s](https://github.com/%s/tree/%s/%s))", s, label, r.Project.Repo, r.Project.Commit, dir)
	}
	url := fmt.Sprintf("https://github.com/%s/blob/%s/%s", r.Project.Repo, r.Project.Commit, file)
	label := file
	if f.Line > 0 {
		url += fmt.Sprintf("#L%d", f.Line)
		label += fmt.Sprintf(":%d", f.Line)
	}
	return fmt.Sprintf("%s ([%s](%s))", s, cell(label), url)
}

func shortKind(kind string) string {
	switch kind {
	case "MutatingWebhookConfiguration":
		return "mutating"
	case "ValidatingWebhookConfiguration":
		return "validating"
	}
	return kind
}

// maxMessage is the length above which a message is cut to its first sentence.
const maxMessage = 160

// firstSentence shortens a long message to its first sentence: the rest is the explanation,
// which docs/lint.md has.
func firstSentence(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	if i := strings.Index(msg, ". "); i > 0 {
		return msg[:i+1]
	}
	return msg
}

// cell makes text safe in a Markdown table cell: on one line, no column separators, no HTML.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(oneLine(s))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func scrub(opts reportOptions, s string) string {
	if opts.Scrub == nil {
		return s
	}
	return opts.Scrub.Replace(s)
}
