package upgradegate_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/examples/extension/upgradegate"
	"github.com/admitkit/admit/extension"
)

// serve starts the gate over TLS on loopback and returns a caller with the discovered handlers
// registered, and those handlers.
func serve(t *testing.T, now time.Time) (*extension.Caller, []extension.Extension) {
	t.Helper()
	ca, err := certs.NewCA("upgradegate test", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	serving, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := serving.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	server := httptest.NewUnstartedServer(upgradegate.NewHandler(upgradegate.Options{
		Window: upgradegate.MaintenanceWindow{Start: 2 * time.Hour, Duration: time.Hour},
		Now:    func() time.Time { return now },
	}))
	server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	server.StartTLS()
	t.Cleanup(server.Close)

	registry := extension.NewRegistry()
	caller, err := extension.NewCaller(registry, extension.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(caller.Close)
	discovered, err := caller.Discover(context.Background(), extension.ExtensionServer{
		Name: "gate", ClientConfig: extension.ClientConfig{URL: server.URL, CABundle: ca.CertPEM()},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := registry.Register(discovered...); err != nil {
		t.Fatal(err)
	}
	return caller, discovered
}

func TestDiscoveryAdvertisesBothHandlers(t *testing.T) {
	_, discovered := serve(t, time.Now())
	type handler struct {
		Name    string
		Hook    extension.Hook
		Timeout time.Duration
		Policy  extension.FailurePolicy
	}
	var got []handler
	for _, e := range discovered {
		got = append(got, handler{e.Name, e.Hook, e.Timeout, e.FailurePolicy})
	}
	want := []handler{
		{"maintenance-window.gate", upgradegate.BeforeClusterUpgradeHook(), 5 * time.Second, extension.FailurePolicyIgnore},
		{"version-skew.gate", upgradegate.BeforeClusterUpgradeHook(), 0, extension.FailurePolicyFail},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("discovered handlers (-want +got):\n%s", diff)
	}
}

func TestCallAllOverTLS(t *testing.T) {
	inWindow := time.Date(2026, 3, 1, 2, 30, 0, 0, time.UTC)
	outOfWindow := time.Date(2026, 3, 1, 1, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		now        time.Time
		body       any
		wantStatus extension.ResponseStatus
		wantMsg    string
		wantRetry  int32
		wantErr    string // "calling", "failure" or ""
	}{
		{"in window, one minor", inWindow, upgradegate.BeforeClusterUpgradeRequest{Cluster: "c", FromVersion: "v1.35.0", ToVersion: "v1.36.0"},
			extension.StatusSuccess, "", 0, ""},
		{"out of window, one minor", outOfWindow, upgradegate.BeforeClusterUpgradeRequest{Cluster: "c", FromVersion: "v1.35.0", ToVersion: "v1.36.0"},
			extension.StatusSuccess, "", 3600, ""},
		{"out of window, skipping", outOfWindow, upgradegate.BeforeClusterUpgradeRequest{Cluster: "c", FromVersion: "v1.34.0", ToVersion: "v1.36.0"},
			extension.StatusFailure, "version-skew.gate: cluster c: upgrades may not skip a minor version (v1.34.0 to v1.36.0)", 3600, "failure"},
		// A body the gate cannot decode: both handlers answer 400. version-skew (Fail) makes it a
		// calling error; maintenance-window (Ignore) is ignored.
		{"undecodable request", inWindow, []string{"not", "a", "request"},
			extension.StatusFailure, `version-skew.gate: HTTP status 400, want 200: body "decoding BeforeClusterUpgrade request: json: cannot unmarshal array into Go value of type upgradegate.BeforeClusterUpgradeRequest\n"`, 0, "calling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caller, _ := serve(t, tt.now)
			agg, err := extension.CallAll[upgradegate.BeforeClusterUpgradeResponse](context.Background(), caller,
				extension.Request{Hook: upgradegate.BeforeClusterUpgradeHook(), Body: tt.body})
			var calling *extension.CallingError
			var failed *extension.FailureError
			gotErr := ""
			switch {
			case errors.As(err, &calling):
				gotErr = "calling"
			case errors.As(err, &failed):
				gotErr = "failure"
			}
			got := []any{agg.Status, agg.Message, agg.RetryAfterSeconds, gotErr}
			want := []any{tt.wantStatus, tt.wantMsg, tt.wantRetry, tt.wantErr}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status, message, retryAfter, error (-want +got):\n%s", diff)
			}
		})
	}
}
