package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// AnchorsBenchmark is the name of the benchmark in test/e2e/anchors_bench_e2e_test.go whose
// output ParseAnchors reads: admit review against what users would run instead, on the same
// objects; its sub-benchmarks are webhook=none and webhook=one.
const AnchorsBenchmark = "BenchmarkReviewAnchors"

// Goals of issue #41 for admit review against kube-apiserver, ratios measured in the same run.
const (
	// GoalReviewVsAPIServer: admit review spends at most this fraction of kube-apiserver's CPU per
	// server-side dry-run create of the same object, without and with one webhook.
	GoalReviewVsAPIServer = 0.5
	// GoalReviewWebhookOverNone: admit review's CPU per object with one webhook is at most this
	// many times its CPU per object without one.
	GoalReviewWebhookOverNone = 1.3
)

// Anchors is what the anchors benchmark measured: each webhook variant, in rounds.
type Anchors struct {
	CPU string
	// Variants are "none" and "one", in that order.
	Variants []AnchorsVariant
}

// AnchorsVariant is one webhook variant's rounds, in the order they ran.
type AnchorsVariant struct {
	// Webhook is "none" or "one".
	Webhook string
	Rounds  []AnchorsRound
}

// AnchorsRound is one round: CPU per object in microseconds of kube-apiserver's dry runs (and
// of the apiserver idle over as long, its background), of etcd, of admit review and of
// kubectl-validate (0: not run, as with the webhook, which it calls none).
type AnchorsRound struct {
	Objects                                int
	APIServer, APIServerIdle, Etcd, Review float64
	KubectlValidate                        float64
	// ReviewVsAPIServer is admit review's CPU per object over the apiserver's.
	ReviewVsAPIServer float64
	// GenerateNameRefused are the objects named by generateName that kubectl-validate refused.
	GenerateNameRefused int
	// Load1 is the one-minute load average at the round's end.
	Load1 float64
}

// anchorsRequired are the metrics every result line must have.
var anchorsRequired = []string{"objects", "apiserver-cpu-µs/object", "etcd-cpu-µs/object", "review-cpu-µs/object", "review/apiserver"}

// ParseAnchors reads Go benchmark output of BenchmarkReviewAnchors: result lines named
// BenchmarkReviewAnchors/webhook=W[-PROCS], a round each, with objects, apiserver-cpu-µs/object,
// etcd-cpu-µs/object, review-cpu-µs/object and review/apiserver metrics, and optionally
// apiserver-idle-cpu-µs/object, kubectl-validate-cpu-µs/object,
// kubectl-validate-generateName-refused and load1.
func ParseAnchors(output []byte) (*Anchors, error) {
	a := &Anchors{}
	var err error
	a.CPU, err = eachResult(output, subOf(AnchorsBenchmark), func(line int, _ string, fields []string) error {
		metrics, err := benchMetrics(fields, line)
		if err != nil {
			return err
		}
		webhook, err := anchorsWebhookOf(fields[0], line)
		if err != nil {
			return err
		}
		round, err := anchorsRoundOf(metrics, line)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(a.Variants, func(v AnchorsVariant) bool { return v.Webhook == webhook })
		if i < 0 {
			i = len(a.Variants)
			a.Variants = append(a.Variants, AnchorsVariant{Webhook: webhook})
		}
		a.Variants[i].Rounds = append(a.Variants[i].Rounds, round)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(a.Variants) == 0 {
		return nil, fmt.Errorf("no %s result line found", AnchorsBenchmark)
	}
	slices.SortStableFunc(a.Variants, func(x, y AnchorsVariant) int { return strings.Compare(x.Webhook, y.Webhook) })
	return a, nil
}

// anchorsWebhookOf reads the variant a result line's benchmark name says, webhook=W after the
// benchmark's own name.
func anchorsWebhookOf(benchmark string, line int) (string, error) {
	name := strings.TrimPrefix(benchmark, AnchorsBenchmark+"/")
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i] // the GOMAXPROCS suffix
		}
	}
	webhook, ok := strings.CutPrefix(name, "webhook=")
	if !ok || webhook == "" || strings.Contains(webhook, "/") {
		return "", fmt.Errorf("line %d: %q does not name webhook=W", line, benchmark)
	}
	return webhook, nil
}

// anchorsRoundOf reads one result line's metrics; units it does not know are left.
func anchorsRoundOf(metrics map[string]float64, line int) (AnchorsRound, error) {
	for _, m := range anchorsRequired {
		if _, ok := metrics[m]; !ok {
			return AnchorsRound{}, fmt.Errorf("line %d: no %s metric (want %s)", line, m, strings.Join(anchorsRequired, ", "))
		}
	}
	return AnchorsRound{
		Objects: int(metrics["objects"]), APIServer: metrics["apiserver-cpu-µs/object"],
		APIServerIdle: metrics["apiserver-idle-cpu-µs/object"], Etcd: metrics["etcd-cpu-µs/object"],
		Review: metrics["review-cpu-µs/object"], ReviewVsAPIServer: metrics["review/apiserver"],
		KubectlValidate: metrics["kubectl-validate-cpu-µs/object"], GenerateNameRefused: int(metrics["kubectl-validate-generateName-refused"]),
		Load1: metrics["load1"],
	}, nil
}

// variant is the variant of webhook, or nil.
func (a *Anchors) variant(webhook string) *AnchorsVariant {
	if a == nil {
		return nil
	}
	for i := range a.Variants {
		if a.Variants[i].Webhook == webhook {
			return &a.Variants[i]
		}
	}
	return nil
}

// medianOf is the median over v's rounds of f.
func (v *AnchorsVariant) medianOf(f func(AnchorsRound) float64) float64 {
	values := make([]float64, len(v.Rounds))
	for i, r := range v.Rounds {
		values[i] = f(r)
	}
	return median(values)
}

// ratios are the review/apiserver ratios of v's rounds, as the section writes them.
func (v *AnchorsVariant) ratios() []string {
	var out []string
	for _, r := range v.Rounds {
		out = append(out, ratio(r.ReviewVsAPIServer))
	}
	return out
}

// The goals' rows, as the goals table names them.
const (
	anchorsGoalNone = "Review CPU per object, no webhook"
	anchorsGoalOne  = "Review CPU per object, one webhook"
	anchorsGoalOver = "Review CPU per object, one webhook over none"
)

// The goals' targets, as the goals table writes them.
var (
	anchorsTargetVsAPIServer = fmt.Sprintf("≤ %s× the apiserver's per dry-run object", num(GoalReviewVsAPIServer))
	anchorsTargetOver        = fmt.Sprintf("≤ %s×", num(GoalReviewWebhookOverNone))
)

func anchorsSection(in Input, rep *Report) error {
	none, one := in.Anchors.variant("none"), in.Anchors.variant("one")
	if none == nil && one == nil {
		rep.Sections[SectionAnchors] = "Not measured in this run (`make bench` runs it with `make bench-anchors`)."
	} else {
		rep.Sections[SectionAnchors] = anchorsTable(none, one)
	}
	var b strings.Builder
	for _, v := range []struct {
		what    string
		variant *AnchorsVariant
	}{{anchorsGoalNone, none}, {anchorsGoalOne, one}} {
		if v.variant == nil {
			rep.goals = append(rep.goals, goal{what: v.what, target: anchorsTargetVsAPIServer, measured: "–", status: "not measured"})
			continue
		}
		r := v.variant.medianOf(func(r AnchorsRound) float64 { return r.ReviewVsAPIServer })
		met := r > 0 && r <= GoalReviewVsAPIServer
		rep.addGoal(v.what, anchorsTargetVsAPIServer, ratio(r), met)
		fmt.Fprintf(&b, "- Goal, %s (admit review's CPU per object ≤ %s× the apiserver's per dry-run create): **%s** — %s (rounds: %s).\n",
			reviewName(v.variant.Webhook), num(GoalReviewVsAPIServer), metOrMissed(met), ratio(r), strings.Join(v.variant.ratios(), ", "))
	}
	if none == nil || one == nil {
		rep.goals = append(rep.goals, goal{what: anchorsGoalOver, target: anchorsTargetOver, measured: "–", status: "not measured"})
	} else {
		review := func(r AnchorsRound) float64 { return r.Review }
		apiserver := func(r AnchorsRound) float64 { return r.APIServer }
		withHook, without := one.medianOf(review), none.medianOf(review)
		r := withHook / without
		met := r > 0 && r <= GoalReviewWebhookOverNone
		rep.addGoal(anchorsGoalOver, anchorsTargetOver, ratio(r), met)
		fmt.Fprintf(&b, "- Goal, one webhook over none (admit review's CPU per object ≤ %s× without a webhook): **%s** — %s (%s µs against %s µs; the apiserver's own: %s).\n",
			num(GoalReviewWebhookOverNone), metOrMissed(met), ratio(r), num(withHook), num(without), ratio(one.medianOf(apiserver)/none.medianOf(apiserver)))
	}
	if b.Len() > 0 {
		rep.Sections[SectionAnchors] += "\n" + b.String()
	}
	return nil
}

// anchorsTable is the rounds of each variant, and their medians.
func anchorsTable(variants ...*AnchorsVariant) string {
	var b strings.Builder
	b.WriteString("CPU per object of each round, read from the processes: kube-apiserver's server-side dry-run creates (and the apiserver idle over as long, its background work), etcd's under them, `admit review --summary` of the same objects and kubectl-validate of them (without the webhook: it calls none). The goals are medians over the rounds.\n\n")
	b.WriteString("| Webhooks | Round | Objects | kube-apiserver | apiserver idle | etcd | admit review | review/apiserver | kubectl-validate | Load |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	micro := func(v float64) string {
		if v == 0 {
			return "–"
		}
		return num(v) + " µs"
	}
	var refused []string
	for _, v := range variants {
		if v == nil {
			continue
		}
		for i, r := range v.Rounds {
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", reviewName(v.Webhook), i+1, r.Objects, micro(r.APIServer),
				micro(r.APIServerIdle), micro(r.Etcd), micro(r.Review), ratio(r.ReviewVsAPIServer), micro(r.KubectlValidate), num1(r.Load1))
			if r.KubectlValidate > 0 {
				refused = append(refused, strconv.Itoa(r.GenerateNameRefused))
			}
		}
		m := func(f func(AnchorsRound) float64) string { return micro(v.medianOf(f)) }
		fmt.Fprintf(&b, "| %s | median | | %s | %s | %s | %s | %s | %s | |\n", reviewName(v.Webhook),
			m(func(r AnchorsRound) float64 { return r.APIServer }), m(func(r AnchorsRound) float64 { return r.APIServerIdle }),
			m(func(r AnchorsRound) float64 { return r.Etcd }), m(func(r AnchorsRound) float64 { return r.Review }),
			ratio(v.medianOf(func(r AnchorsRound) float64 { return r.ReviewVsAPIServer })), m(func(r AnchorsRound) float64 { return r.KubectlValidate }))
	}
	if len(refused) > 0 {
		fmt.Fprintf(&b, "\nObjects named by generateName that kubectl-validate refused (it validates an object as stored), by round: %s.\n", strings.Join(refused, ", "))
	}
	return b.String()
}
