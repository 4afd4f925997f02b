package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/admitkit/admit/internal/image"
)

func main() {
	var opts image.Options
	flag.StringVar(&opts.Binary, "binary", "bin/linux/admit", "the static admit binary to put in the image")
	flag.StringVar(&opts.Out, "out", "bin/image", "directory for the OCI layout (layout/) and the tarball (admit.tar)")
	flag.StringVar(&opts.Ref, "tag", "ghcr.io/admitkit/admit:dev", "the image's name and tag")
	flag.StringVar(&opts.Version, "version", "dev", "the version the image's labels name")
	flag.StringVar(&opts.Revision, "revision", "", "the commit the image's labels name")
	flag.StringVar(&opts.Arch, "arch", "amd64", "the binary's architecture")
	flag.Parse()
	ref, err := image.Build(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Printf("%s\n%s/layout\n%s/admit.tar\n", ref, opts.Out, opts.Out)
}
