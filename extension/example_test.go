package extension_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/admitkit/admit/extension"
)

// The examples run real extensions over TLS on 127.0.0.1.

// BeforeUpgradeRequest and BeforeUpgradeResponse are the types of an example lifecycle hook.
type BeforeUpgradeRequest struct {
	FromVersion string `json:"fromVersion"`
	ToVersion   string `json:"toVersion"`
}

type BeforeUpgradeResponse struct {
	extension.CommonResponse
}

func beforeUpgrade() extension.Hook {
	return extension.Hook{Group: "hooks.example.io", Version: "v1alpha1", Name: "BeforeUpgrade"}
}

// startExtension serves handler over TLS and returns its URL and the CA bundle to trust it.
func startExtension(handler http.HandlerFunc) (*httptest.Server, []byte) {
	srv := httptest.NewTLSServer(handler)
	bundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv, bundle
}

func reply(resp any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}
}

func ExampleCallAll() {
	window, windowCA := startExtension(reply(extension.CommonResponse{
		Status: extension.StatusSuccess, Message: "outside the maintenance window", RetryAfterSeconds: 300,
	}))
	defer window.Close()
	skew, skewCA := startExtension(reply(extension.CommonResponse{
		Status: extension.StatusFailure, Message: "upgrades may not skip a minor version",
	}))
	defer skew.Close()
	audit, auditCA := startExtension(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "audit log full", http.StatusServiceUnavailable)
	})
	defer audit.Close()

	registry := extension.NewRegistry()
	err := registry.Register(
		extension.Extension{Name: "version-skew", Hook: beforeUpgrade(),
			ClientConfig: extension.ClientConfig{URL: skew.URL, CABundle: skewCA}},
		extension.Extension{Name: "maintenance-window", Hook: beforeUpgrade(),
			ClientConfig: extension.ClientConfig{URL: window.URL, CABundle: windowCA}},
		extension.Extension{Name: "audit", Hook: beforeUpgrade(), FailurePolicy: extension.FailurePolicyIgnore,
			ClientConfig: extension.ClientConfig{URL: audit.URL, CABundle: auditCA}},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	caller, err := extension.NewCaller(registry, extension.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer caller.Close()

	agg, err := extension.CallAll[BeforeUpgradeResponse](context.Background(), caller, extension.Request{
		Hook: beforeUpgrade(), Body: BeforeUpgradeRequest{FromVersion: "v1.34.2", ToVersion: "v1.36.0"},
	})
	fmt.Println("status:", agg.Status)
	fmt.Println("message:", agg.Message)
	fmt.Println("retry after:", agg.RetryAfterSeconds)
	var failed *extension.FailureError
	fmt.Println("an extension failed:", errors.As(err, &failed))
	for _, r := range agg.Results {
		fmt.Printf("%s: ignored error: %t\n", r.Extension, r.Ignored != nil)
	}
	// Output:
	// status: Failure
	// message: version-skew: upgrades may not skip a minor version
	// retry after: 300
	// an extension failed: true
	// audit: ignored error: true
	// maintenance-window: ignored error: false
	// version-skew: ignored error: false
}

func ExampleCall() {
	down, downCA := startExtension(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	defer down.Close()

	registry := extension.NewRegistry()
	client := extension.ClientConfig{URL: down.URL, CABundle: downCA}
	err := registry.Register(
		extension.Extension{Name: "strict-gate", Hook: beforeUpgrade(), ClientConfig: client, FailurePolicy: extension.FailurePolicyFail},
		extension.Extension{Name: "lenient-gate", Hook: beforeUpgrade(), ClientConfig: client, FailurePolicy: extension.FailurePolicyIgnore},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	caller, err := extension.NewCaller(registry, extension.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer caller.Close()

	req := extension.Request{Hook: beforeUpgrade(), Body: BeforeUpgradeRequest{FromVersion: "v1.35.0", ToVersion: "v1.36.0"}}
	_, err = extension.Call[BeforeUpgradeResponse](context.Background(), caller, "strict-gate", req)
	var calling *extension.CallingError
	if errors.As(err, &calling) {
		fmt.Printf("Fail: %s answered HTTP %d\n", calling.Extension, calling.StatusCode)
	}
	resp, err := extension.Call[BeforeUpgradeResponse](context.Background(), caller, "lenient-gate", req)
	fmt.Printf("Ignore: status %s, error %v\n", resp.Status, err)
	// Output:
	// Fail: strict-gate answered HTTP 503
	// Ignore: status Success, error <nil>
}

func ExampleRegistry_Register() {
	registry := extension.NewRegistry()
	err := registry.Register(extension.Extension{
		Name:          "gate",
		Hook:          beforeUpgrade(),
		ClientConfig:  extension.ClientConfig{URL: "http://gate.example:8080/"},
		Timeout:       45 * time.Second,
		FailurePolicy: "Retry",
	})
	fmt.Println(err)
	// Output:
	// registering extensions: extensions[0].clientConfig.url: Invalid value: "http://gate.example:8080/": scheme must be https, got "http"; extensions[0].timeout: Invalid value: "45s": must be between 0 and 30s; extensions[0].failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"
}

func ExampleCaller_Discover() {
	server, ca := startExtension(reply(extension.DiscoveryResponse{
		CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess},
		Handlers: []extension.DiscoveredHandler{{
			Name:        "version-skew",
			RequestHook: extension.HookReference{APIVersion: "hooks.example.io/v1alpha1", Hook: "BeforeUpgrade"},
		}},
	}))
	defer server.Close()

	registry := extension.NewRegistry()
	caller, err := extension.NewCaller(registry, extension.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer caller.Close()
	discovered, err := caller.Discover(context.Background(), extension.ExtensionServer{
		Name:         "upgrade-policy",
		ClientConfig: extension.ClientConfig{URL: server.URL, CABundle: ca},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range discovered {
		fmt.Println(e.Name, e.Hook, e.FailurePolicy)
	}
	fmt.Println(registry.Register(discovered...))
	// Output:
	// version-skew.upgrade-policy hooks.example.io/v1alpha1/BeforeUpgrade Fail
	// <nil>
}

func ExampleReplaceLevelName() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: extension.LevelTrace,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the example's output stable
			}
			return extension.ReplaceLevelName(groups, a)
		},
	}))
	logger.Log(context.Background(), extension.LevelTrace, "extension answered", "extension", "version-skew")
	// Output:
	// level=TRACE msg="extension answered" extension=version-skew
}
