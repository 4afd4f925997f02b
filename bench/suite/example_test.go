package suite_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/admitkit/admit/bench/suite"
)

// A harness binary runs the comparisons, and serves as each child server when re-executed with
// suite.ChildArgs. (Not run here: it starts servers.)
func ExampleRun() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(suite.ChildMain(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	cfg := suite.Smoke()
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cfg.Executable, cfg.Logf = exe, log.Printf
	res, err := suite.Run(context.Background(), cfg, "admitbench -smoke")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range res.Serving {
		fmt.Printf("%s: %.0f requests/s, %v CPU per request\n", s.Server, s.Throughput, s.PerRequest.CPU)
	}
}
