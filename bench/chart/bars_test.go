package chart

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	for _, tc := range []struct{ max, step, top float64 }{
		{0, 1, 1},
		{1, 0.2, 1},
		{6, 1, 6},
		{7, 2, 8},
		{1460, 500, 1500},
		{12261, 5000, 15000},
		{0.044, 0.01, 0.05},
		{2050, 500, 2500},
	} {
		step, top := ticks(tc.max)
		if math.Abs(step-tc.step) > 1e-12 || math.Abs(top-tc.top) > 1e-12 {
			t.Errorf("ticks(%v) = %v, %v; want %v, %v", tc.max, step, top, tc.step, tc.top)
		}
	}
}

func TestSVGIsWellFormedAndLabelled(t *testing.T) {
	b := Bars{
		Title:      `Latency <p50 & p99>`,
		Unit:       "milliseconds",
		Categories: []string{"admit", "controller-runtime"},
		Series:     []Series{{Name: "p50", Values: []float64{1.5, 2.25}}, {Name: "p99", Values: []float64{4, 11}}},
	}
	svg, err := b.SVG()
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	bars, texts := 0, []string{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if el.Name.Local == "title" {
				bars++
			}
		case xml.CharData:
			texts = append(texts, string(el))
		}
	}
	if bars != 4 {
		t.Errorf("%d bars, want 2 categories × 2 series", bars)
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"Latency <p50 & p99>", "admit", "controller-runtime", "p50", "p99", "2.25", "11", "milliseconds"} {
		if !strings.Contains(all, want) {
			t.Errorf("the chart's text lacks %q: %s", want, all)
		}
	}
	again, _ := b.SVG()
	if !bytes.Equal(svg, again) {
		t.Error("the same chart rendered twice differs")
	}
}

func TestInvalidCharts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bars    Bars
		wantErr string
	}{
		{"empty", Bars{Title: "t"}, "no categories"},
		{"short series", Bars{Title: "t", Categories: []string{"a", "b"}, Series: []Series{{Name: "s", Values: []float64{1}}}}, "has 1 values for 2 categories"},
		{"negative", Bars{Title: "t", Categories: []string{"a"}, Series: []Series{{Name: "s", Values: []float64{-1}}}}, "not a non-negative number"},
		{"NaN", Bars{Title: "t", Categories: []string{"a"}, Series: []Series{{Name: "s", Values: []float64{math.NaN()}}}}, "not a non-negative number"},
	} {
		if _, err := tc.bars.SVG(); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.wantErr)
		}
	}
}
