package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/admitkit/admit/bench/chart"
)

// ReviewBenchmark is the name of the review throughput benchmark in review/bench_test.go whose
// output ParseReview reads.
const ReviewBenchmark = "BenchmarkReviewThroughput"

// Review is what the review throughput benchmark measured: each size and webhook variant, run
// in processes of their own, in rounds.
type Review struct {
	Variants []ReviewVariant
}

// ReviewVariant is one size of input with or without the webhook; figures are medians over runs.
type ReviewVariant struct {
	Objects int
	// Webhook is "none" or "one".
	Webhook string
	Runs    int
	// ObjectsPerSecond is wall-clock throughput on all cores; CPUPerObject is in microseconds;
	// PeakRSS in MiB.
	ObjectsPerSecond, CPUPerObject, PeakRSS float64
	// LoadMin and LoadMax are the range of the one-minute load average the runs started under.
	LoadMin, LoadMax float64
	// PerRun are the objects per second of each run, in the order they ran.
	PerRun []float64
}

// ParseReview reads Go benchmark output of BenchmarkReviewThroughput: lines named
// ".../objects=N/webhook=W" with objects/s, cpu-µs/object, peak-rss-MiB and load1 metrics.
func ParseReview(output []byte) (*Review, error) {
	byKey := map[string]*reviewSamples{}
	var order []ReviewVariant
	_, err := eachResult(output, subOf(ReviewBenchmark), func(line int, text string, fields []string) error {
		if len(fields)%2 != 0 {
			return fmt.Errorf("line %d: metrics are not value-unit pairs: %q", line, text)
		}
		v, err := reviewVariantOf(fields[0], line)
		if err != nil {
			return err
		}
		key := fmt.Sprintf("%d/%s", v.Objects, v.Webhook)
		s, seen := byKey[key]
		if !seen {
			s = &reviewSamples{}
			byKey[key] = s
			order = append(order, v)
		}
		return s.add(fields[2:], line)
	})
	if err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("no %s result line found", ReviewBenchmark)
	}
	r := &Review{}
	for _, v := range order {
		s := byKey[fmt.Sprintf("%d/%s", v.Objects, v.Webhook)]
		if len(s.perSecond) == 0 {
			return nil, fmt.Errorf("%d objects, webhook %s: no objects/s metric", v.Objects, v.Webhook)
		}
		v.Runs = len(s.perSecond)
		v.ObjectsPerSecond, v.CPUPerObject, v.PeakRSS = median(s.perSecond), median(s.cpu), median(s.rss)
		v.PerRun = s.perSecond
		if len(s.load) > 0 {
			v.LoadMin, v.LoadMax = slices.Min(s.load), slices.Max(s.load)
		}
		r.Variants = append(r.Variants, v)
	}
	slices.SortStableFunc(r.Variants, func(x, y ReviewVariant) int {
		if c := strings.Compare(x.Webhook, y.Webhook); c != 0 {
			return c
		}
		return x.Objects - y.Objects
	})
	return r, nil
}

// reviewVariantOf reads the variant a result line's benchmark name says, objects=N/webhook=W
// after the benchmark's own name.
func reviewVariantOf(benchmark string, line int) (ReviewVariant, error) {
	var v ReviewVariant
	name := benchmark[len(ReviewBenchmark)+1:]
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		name = name[:i] // the GOMAXPROCS suffix
	}
	for _, part := range strings.Split(name, "/") {
		key, value, _ := strings.Cut(part, "=")
		switch key {
		case "objects":
			n, err := strconv.Atoi(value)
			if err != nil {
				return v, fmt.Errorf("line %d: objects=%q: %w", line, value, err)
			}
			v.Objects = n
		case "webhook":
			v.Webhook = value
		}
	}
	if v.Objects == 0 || v.Webhook == "" {
		return v, fmt.Errorf("line %d: %q does not name objects=N/webhook=W", line, benchmark)
	}
	return v, nil
}

// reviewSamples are one variant's metrics, a value per result line.
type reviewSamples struct{ perSecond, cpu, rss, load []float64 }

// add keeps the metrics of one result line, value-unit pairs; units it does not know are left.
func (s *reviewSamples) add(metrics []string, line int) error {
	for i := 0; i < len(metrics); i += 2 {
		x, err := strconv.ParseFloat(metrics[i], 64)
		if err != nil {
			return fmt.Errorf("line %d: metric %s: %w", line, metrics[i+1], err)
		}
		switch metrics[i+1] {
		case "objects/s":
			s.perSecond = append(s.perSecond, x)
		case "cpu-µs/object":
			s.cpu = append(s.cpu, x)
		case "peak-rss-MiB":
			s.rss = append(s.rss, x)
		case "load1":
			s.load = append(s.load, x)
		}
	}
	return nil
}

// reviewWebhookNames are the variants as the report names them.
var reviewWebhookNames = map[string]string{"none": "no webhook", "one": "one webhook"}

func reviewSection(in Input, rep *Report) error {
	rv := in.Review
	if rv == nil {
		rep.Sections[SectionReview] = "Not measured in this run (`make bench` runs it)."
		return nil
	}
	var b strings.Builder
	runs := 0
	for _, v := range rv.Variants {
		runs = max(runs, v.Runs)
	}
	fmt.Fprintf(&b, "Each size and variant reviewed in a process of its own (so that its peak RSS is its own), %s interleaved; medians. Objects per second are wall-clock, on all %s.\n\n",
		plural(runs, "round"), coresOf(in))
	b.WriteString("| Webhooks | Objects | Objects/s | CPU per object | Peak RSS | Runs (objects/s) | Load |\n|---|---:|---:|---:|---:|---|---|\n")
	for _, v := range rv.Variants {
		var per []string
		for _, x := range v.PerRun {
			per = append(per, num(x))
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s µs | %s MiB | %s | %s–%s |\n", reviewName(v.Webhook), v.Objects, num(v.ObjectsPerSecond),
			num(v.CPUPerObject), num(v.PeakRSS), strings.Join(per, ", "), num1(v.LoadMin), num1(v.LoadMax))
	}
	b.WriteString("\nThe review's goals are ratios to kube-apiserver's CPU per object measured in the same run, not objects per second, which depend on the CPU: see [against what users run instead](#against-what-users-run-instead-kube-apiserver-and-kubectl-validate).\n")
	fmt.Fprintf(&b, "\n![Review throughput](%sreview-throughput.svg)\n![Review memory](%sreview-memory.svg)\n", in.ChartPath, in.ChartPath)
	rep.Sections[SectionReview] = b.String()

	var categories, sizes []string
	for _, v := range rv.Variants {
		if !slices.Contains(categories, reviewName(v.Webhook)) {
			categories = append(categories, reviewName(v.Webhook))
		}
		if size := fmt.Sprintf("%d objects", v.Objects); !slices.Contains(sizes, size) {
			sizes = append(sizes, size)
		}
	}
	series := func(f func(ReviewVariant) float64) []chart.Series {
		var out []chart.Series
		for _, size := range sizes {
			s := chart.Series{Name: size, Values: make([]float64, len(categories))}
			for _, v := range rv.Variants {
				if fmt.Sprintf("%d objects", v.Objects) == size {
					s.Values[slices.Index(categories, reviewName(v.Webhook))] = f(v)
				}
			}
			out = append(out, s)
		}
		return out
	}
	return renderCharts(rep, map[string]chart.Bars{
		"review-throughput.svg": {Title: "Review throughput through the whole chain (higher is better)",
			Unit: "objects per second", Categories: categories, Series: series(func(v ReviewVariant) float64 { return v.ObjectsPerSecond }), Format: num},
		"review-memory.svg": {Title: "Peak RSS of a review (lower is better)", Unit: "MiB", Categories: categories,
			Series: series(func(v ReviewVariant) float64 { return v.PeakRSS }), Format: num},
	})
}

func reviewName(webhook string) string {
	if name, ok := reviewWebhookNames[webhook]; ok {
		return name
	}
	return webhook
}

// coresOf says how many cores the run had.
func coresOf(in Input) string {
	if in.Results != nil && in.Results.Machine.CPUs > 0 {
		return plural(in.Results.Machine.CPUs, "core")
	}
	return "cores"
}

func num1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
