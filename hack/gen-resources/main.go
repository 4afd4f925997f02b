package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/admitkit/admit/internal/testenv"
	"github.com/admitkit/admit/resources"
)

func main() {
	out := flag.String("o", "resources/kube-1.36.json", "file to write")
	wantVersion := flag.String("kube-version", "v1.36.", "prefix the apiserver's version must have, so that data and file name agree")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *out, *wantVersion); err != nil {
		fmt.Fprintln(os.Stderr, "gen-resources:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, wantVersion string) (err error) {
	env, err := testenv.Start(ctx, testenv.Options{Logf: log.Printf})
	if err != nil {
		return fmt.Errorf("starting kube-apiserver: %w", err)
	}
	defer func() {
		if stopErr := env.Stop(); stopErr != nil && err == nil {
			err = fmt.Errorf("stopping kube-apiserver: %w", stopErr)
		}
	}()
	client, err := discovery.NewDiscoveryClientForConfig(env.RESTConfig)
	if err != nil {
		return fmt.Errorf("creating a discovery client: %w", err)
	}
	mapper, err := resources.FromDiscovery(client)
	if err != nil {
		// A fresh apiserver with nothing aggregated must answer completely.
		return err
	}
	if !strings.HasPrefix(mapper.ServerVersion(), wantVersion) {
		return fmt.Errorf("kube-apiserver is %s, want %s*: rebuild it or pass -kube-version and -o", mapper.ServerVersion(), wantVersion)
	}
	if err := checkSharedPlurals(mapper); err != nil {
		return err
	}
	data, err := mapper.MarshalJSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	log.Print(summary(mapper, out))
	return nil
}

// checkSharedPlurals fails when two groups serve the same plural name but are not equivalent:
// the apiserver keys storage by plural name, so such resources may share storage (and then be
// equivalent) unless the apiserver gives one of them a storage prefix of its own.
func checkSharedPlurals(m *resources.Mapper) error {
	groupsByPlural := map[string][]schema.GroupVersionResource{}
	for _, r := range m.Resources() {
		groupsByPlural[r.GVR.Resource] = append(groupsByPlural[r.GVR.Resource], r.GVR)
	}
	var problems []string
	for plural, gvrs := range groupsByPlural {
		for _, a := range gvrs {
			for _, b := range gvrs {
				if a.Group < b.Group && !slices.Contains(m.Equivalents(a, ""), b) {
					problems = append(problems, fmt.Sprintf("%q is served by groups %q and %q", plural, a.Group, b.Group))
				}
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	problems = slices.Compact(problems)
	return fmt.Errorf("resources of the same name in different groups, which kube-apiserver may store together:\n  %s\n"+
		"check its storage factory (cohabitating resources, special resource prefixes) and teach resources.storageKey which are equivalent",
		strings.Join(problems, "\n  "))
}

func summary(m *resources.Mapper, out string) string {
	all := m.Resources()
	groupVersions := map[schema.GroupVersion]bool{}
	subresources := 0
	var shared []string
	for _, r := range all {
		groupVersions[r.GVR.GroupVersion()] = true
		subresources += len(r.Subresources)
		if eq := m.Equivalents(r.GVR, ""); len(eq) > 1 && eq[0] == r.GVR {
			names := make([]string, len(eq))
			for i, gvr := range eq {
				names[i] = strings.TrimPrefix(gvr.GroupVersion().String()+"/"+gvr.Resource, "/")
			}
			shared = append(shared, strings.Join(names, " = "))
		}
	}
	return fmt.Sprintf("wrote %s: kube-apiserver %s, %d resources and %d subresources in %d group-versions; equivalent: %s",
		out, m.ServerVersion(), len(all), subresources, len(groupVersions), strings.Join(shared, "; "))
}
