package chart_test

import (
	"fmt"
	"strings"

	"github.com/admitkit/admit/bench/chart"
)

func ExampleBars_SVG() {
	svg, err := chart.Bars{
		Title:      "Maximum throughput",
		Unit:       "requests per second",
		Categories: []string{"admit", "controller-runtime", "floor"},
		Series:     []chart.Series{{Name: "req/s", Values: []float64{4200, 1500, 9800}}},
	}.SVG()
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(string(svg), "<svg"), strings.Count(string(svg), "<title>"))
	// Output: true 3
}
