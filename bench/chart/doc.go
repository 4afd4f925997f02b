// Package chart draws horizontal bar charts as standalone SVG, for the benchmark report.
//
// Bars are grouped by category, one bar per series in each group, each labelled with its value,
// on a linear axis starting at zero. Output is deterministic: the same chart always yields the
// same bytes, so regenerated charts only change in git when the numbers do.
//
//	bars.go  Bars, Series: the chart, its layout, axis ticks and colours, rendered as SVG
package chart
