package upgradegate_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/examples/extension/upgradegate"
	"github.com/admitkit/admit/extension"
)

// Example serves the upgrade gate over TLS on loopback, discovers its handlers, and asks it
// about three upgrades with extension.CallAll, as an upgrade controller would.
func Example() {
	// The clock the server reads; the example moves it to leave the maintenance window.
	var clock atomic.Int64
	clock.Store(time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC).Unix())

	ca, err := certs.NewCA("upgradegate example", time.Hour)
	if err != nil {
		fmt.Println(err)
		return
	}
	serving, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	cert, err := serving.TLSCertificate()
	if err != nil {
		fmt.Println(err)
		return
	}
	server := httptest.NewUnstartedServer(upgradegate.NewHandler(upgradegate.Options{
		Window: upgradegate.MaintenanceWindow{Start: 2 * time.Hour, Duration: 4 * time.Hour},
		Now:    func() time.Time { return time.Unix(clock.Load(), 0) },
	}))
	server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	server.StartTLS()
	defer server.Close()

	registry := extension.NewRegistry()
	caller, err := extension.NewCaller(registry, extension.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer caller.Close()
	ctx := context.Background()
	discovered, err := caller.Discover(ctx, extension.ExtensionServer{
		Name:         "upgradegate",
		ClientConfig: extension.ClientConfig{URL: server.URL, CABundle: ca.CertPEM()},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := registry.Register(discovered...); err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range discovered {
		fmt.Printf("discovered %s (failurePolicy %s)\n", e.Name, e.FailurePolicy)
	}

	ask := func(from, to string) {
		agg, err := extension.CallAll[upgradegate.BeforeClusterUpgradeResponse](ctx, caller, extension.Request{
			Hook: upgradegate.BeforeClusterUpgradeHook(),
			Body: upgradegate.BeforeClusterUpgradeRequest{Cluster: "prod", FromVersion: from, ToVersion: to},
		})
		switch {
		case err != nil:
			fmt.Printf("%s -> %s: refused: %s\n", from, to, agg.Message)
		case agg.RetryAfterSeconds > 0:
			fmt.Printf("%s -> %s: retry in %ds (%s)\n", from, to, agg.RetryAfterSeconds, agg.Results[0].Response.Message)
		default:
			fmt.Printf("%s -> %s: proceed\n", from, to)
		}
	}
	ask("v1.35.2", "v1.36.0")
	ask("v1.34.0", "v1.36.0")
	clock.Store(time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC).Unix())
	ask("v1.36.0", "v1.36.1")
	// Output:
	// discovered maintenance-window.upgradegate (failurePolicy Ignore)
	// discovered version-skew.upgradegate (failurePolicy Fail)
	// v1.35.2 -> v1.36.0: proceed
	// v1.34.0 -> v1.36.0: refused: version-skew.upgradegate: cluster prod: upgrades may not skip a minor version (v1.34.0 to v1.36.0)
	// v1.36.0 -> v1.36.1: retry in 10800s (outside the maintenance window, which opens in 3h0m0s)
}
