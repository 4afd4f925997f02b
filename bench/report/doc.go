// Package report turns the harness's measurements into the generated parts of
// docs/benchmarks.md — tables of medians and ratios, the goals met or missed — and SVG charts.
//
// Generated text lives between marker comments in the page,
//
//	<!-- admitbench:begin serving -->
//	...
//	<!-- admitbench:end serving -->
//
// and Splice replaces only what is between them, so the hand-written analysis around them stays.
//
// Ratios are medians of per-round ratios: every round measures all the compared things back to
// back, so a ratio within a round compares them under the same load from the rest of the machine.
package report
