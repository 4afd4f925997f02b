package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/admitkit/admit/test/reliability/report"
)

func main() {
	results := flag.String("results", "test/reliability/results", "the directory the reliability run wrote its results to")
	page := flag.String("docs", "docs/reliability.md", "the page whose generated sections are rewritten")
	flag.Parse()
	if err := report.UpdateFile(*page, *results); err != nil {
		fmt.Fprintln(os.Stderr, "reliabilityreport:", err)
		os.Exit(1)
	}
}
