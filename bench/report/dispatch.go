package report

import (
	"fmt"
	"strings"

	"github.com/admitkit/admit/bench/chart"
	"github.com/admitkit/admit/bench/suite"
)

// dispatchSummary holds one dispatcher's medians over rounds.
type dispatchSummary struct{ cpuMicros, allocs, allocKiB, webhookMicros, perSecond float64 }

func dispatchSection(in Input, rep *Report) error {
	r := in.Results
	if len(r.Dispatch) == 0 {
		rep.Sections[SectionDispatch] = "Not measured in this run."
		rep.goals = append(rep.goals, goal{what: "Dispatcher CPU per admission", target: "see below", measured: "–", status: "not measured"})
		return nil
	}
	// Per round: the apiserver's figures less the input copy, then the ratio to admit.
	type round struct{ admit, apiserver, copy suite.DispatchSample }
	rounds := map[int]*round{}
	for _, s := range r.Dispatch {
		if rounds[s.Round] == nil {
			rounds[s.Round] = &round{}
		}
		switch s.Dispatcher {
		case suite.DispatcherAdmit:
			rounds[s.Round].admit = s
		case suite.DispatcherAPIServer:
			rounds[s.Round].apiserver = s
		case suite.DispatcherInputCopy:
			rounds[s.Round].copy = s
		}
	}
	var admit, apiserver, copies []dispatchSummary
	var cpuRatios, allocRatios []float64
	for _, rd := range rounds {
		a := summarizeDispatch(rd.admit)
		c := summarizeDispatch(rd.copy)
		p := summarizeDispatch(rd.apiserver)
		p.cpuMicros -= c.cpuMicros
		p.allocs -= c.allocs
		p.allocKiB -= c.allocKiB
		admit, apiserver, copies = append(admit, a), append(apiserver, p), append(copies, c)
		if p.cpuMicros > 0 {
			cpuRatios = append(cpuRatios, a.cpuMicros/p.cpuMicros)
		}
		if p.allocs > 0 {
			allocRatios = append(allocRatios, a.allocs/p.allocs)
		}
	}
	a, p, c := medianDispatch(admit), medianDispatch(apiserver), medianDispatch(copies)
	cpuRatio, allocRatio := median(cpuRatios), median(allocRatios)
	cfg := r.Config.Dispatch

	var b strings.Builder
	fmt.Fprintf(&b, "One admission: a CREATE of the Pod through one mutating webhook (label and sidecar) and two validating webhooks, all admit webhooks in another process on loopback over TLS. %d admissions in flight, %d per phase; medians of %s. CPU and allocations are the dispatching process's.\n\n",
		cfg.Concurrency, cfg.Admissions, plural(r.Rounds, "round"))
	b.WriteString("| Dispatcher | CPU per admission | vs apiserver | Allocs per admission | Allocated per admission | Admissions/s | Webhook server CPU per admission |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| admit `dispatch` | %s µs | %s | %s | %s KiB | %s | %s µs |\n", num(a.cpuMicros), ratio(cpuRatio), num(a.allocs), num(a.allocKiB), num(a.perSecond), num(a.webhookMicros))
	fmt.Fprintf(&b, "| k8s.io/apiserver plugins | %s µs | 1× | %s | %s KiB | %s | %s µs |\n", num(p.cpuMicros), num(p.allocs), num(p.allocKiB), num(p.perSecond), num(p.webhookMicros))
	fmt.Fprintf(&b, "\nThe apiserver row excludes the DeepCopy of the input Pod its loop makes before each admission (measured alone: %s µs, %s allocations, %s KiB). Allocations: admit makes %s the plugins' count.\n",
		num(c.cpuMicros), num(c.allocs), num(c.allocKiB), ratio(allocRatio))
	fmt.Fprintf(&b, "\n- CPU goal (≤ %s× the apiserver's CPU per admission): **%s** — %s.\n", num(GoalDispatchCPUVsAPIServer),
		metOrMissed(cpuRatio > 0 && cpuRatio <= GoalDispatchCPUVsAPIServer), ratio(cpuRatio))
	rep.addGoal("Dispatcher CPU per admission", fmt.Sprintf("≤ %s× the apiserver plugins'", num(GoalDispatchCPUVsAPIServer)), ratio(cpuRatio),
		cpuRatio > 0 && cpuRatio <= GoalDispatchCPUVsAPIServer)
	fmt.Fprintf(&b, "\n![CPU per admission](%sdispatch-cpu.svg)\n", in.ChartPath)
	rep.Sections[SectionDispatch] = b.String()

	return renderCharts(rep, map[string]chart.Bars{
		"dispatch-cpu.svg": {Title: "Dispatcher CPU time per admission (lower is better)", Unit: "microseconds",
			Categories: []string{"admit dispatch", "apiserver plugins"},
			Series: []chart.Series{
				{Name: "dispatcher", Values: []float64{a.cpuMicros, p.cpuMicros}},
				{Name: "webhook server (3 calls)", Values: []float64{a.webhookMicros, p.webhookMicros}},
			}, Format: num},
	})
}

func summarizeDispatch(s suite.DispatchSample) dispatchSummary {
	d := dispatchSummary{
		cpuMicros:     micros(s.PerAdmission.CPU),
		allocs:        s.PerAdmission.Allocs,
		allocKiB:      s.PerAdmission.AllocBytes / 1024,
		webhookMicros: micros(s.WebhookCPU),
	}
	if s.Elapsed > 0 {
		d.perSecond = float64(s.Admissions) / s.Elapsed.Seconds()
	}
	return d
}

func medianDispatch(ds []dispatchSummary) dispatchSummary {
	field := func(f func(dispatchSummary) float64) float64 {
		v := make([]float64, len(ds))
		for i, d := range ds {
			v[i] = f(d)
		}
		return median(v)
	}
	return dispatchSummary{
		cpuMicros:     field(func(d dispatchSummary) float64 { return d.cpuMicros }),
		allocs:        field(func(d dispatchSummary) float64 { return d.allocs }),
		allocKiB:      field(func(d dispatchSummary) float64 { return d.allocKiB }),
		webhookMicros: field(func(d dispatchSummary) float64 { return d.webhookMicros }),
		perSecond:     field(func(d dispatchSummary) float64 { return d.perSecond }),
	}
}
