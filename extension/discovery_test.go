package extension_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/extension"
)

func ptr[T any](v T) *T { return &v }

// discoveryPath spells the documented path out, to catch DiscoveryPath drifting from it.
func discoveryPath() string { return "/hooks.admitkit.io/v1alpha1/discovery" }

func TestDiscoveryPath(t *testing.T) {
	if got := extension.DiscoveryPath(); got != discoveryPath() {
		t.Errorf("DiscoveryPath() = %q, want %q", got, discoveryPath())
	}
}

func TestDiscoverThenCallAll(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	mux := http.NewServeMux()
	mux.Handle("/base"+discoveryPath(), answer(extension.DiscoveryResponse{
		CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess},
		Handlers: []extension.DiscoveredHandler{
			{Name: "version-skew", RequestHook: extension.HookReference{APIVersion: "hooks.test.admitkit.io/v1alpha1", Hook: "BeforeUpgrade"}},
			{Name: "maintenance-window", RequestHook: extension.HookReference{APIVersion: "hooks.test.admitkit.io/v1alpha1", Hook: "BeforeUpgrade"},
				TimeoutSeconds: ptr[int32](5), FailurePolicy: ptr(extension.FailurePolicyIgnore)},
		},
	}))
	mux.Handle("/base"+extension.HandlerPath(upgradeHook(), "version-skew"), failure("cannot skip a minor version", 0))
	mux.Handle("/base"+extension.HandlerPath(upgradeHook(), "maintenance-window"), success(60))
	base := ca.serve(t, mux).URL

	registry := extension.NewRegistry()
	caller := newCaller(t, registry, extension.Options{})
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"lifecycle": "managed"}}
	discovered, err := caller.Discover(context.Background(), extension.ExtensionServer{
		Name:              "upgrades",
		ClientConfig:      extension.ClientConfig{URL: base + "/base/", CABundle: ca.bundle},
		NamespaceSelector: selector,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []extension.Extension{{
		Name: "maintenance-window.upgrades", Hook: upgradeHook(),
		ClientConfig:  extension.ClientConfig{URL: base + "/base/hooks.test.admitkit.io/v1alpha1/beforeupgrade/maintenance-window", CABundle: ca.bundle},
		Timeout:       5 * time.Second,
		FailurePolicy: extension.FailurePolicyIgnore, NamespaceSelector: selector,
	}, {
		Name: "version-skew.upgrades", Hook: upgradeHook(),
		ClientConfig:  extension.ClientConfig{URL: base + "/base/hooks.test.admitkit.io/v1alpha1/beforeupgrade/version-skew", CABundle: ca.bundle},
		FailurePolicy: extension.FailurePolicyFail, NamespaceSelector: selector,
	}}
	if diff := cmp.Diff(want, discovered); diff != "" {
		t.Fatalf("discovered extensions (-want +got):\n%s", diff)
	}

	if err := registry.Register(discovered...); err != nil {
		t.Fatal(err)
	}
	agg, err := extension.CallAll[upgradeResponse](context.Background(), caller, extension.Request{Hook: upgradeHook()})
	var failed *extension.FailureError
	if !errors.As(err, &failed) || failed.Extension != "version-skew.upgrades" {
		t.Fatalf("error = %v, want an FailureError from version-skew.upgrades", err)
	}
	got := []any{agg.Status, agg.Message, agg.RetryAfterSeconds}
	wantAgg := []any{extension.StatusFailure, "version-skew.upgrades: cannot skip a minor version", int32(60)}
	if diff := cmp.Diff(wantAgg, got); diff != "" {
		t.Errorf("aggregate status, message, retryAfter (-want +got):\n%s", diff)
	}
}

func TestDiscoverServicePaths(t *testing.T) {
	ca := newTestCA(t, "runtime.hooks.svc")
	var gotPath string
	srv := ca.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.Path
		answer(extension.DiscoveryResponse{
			CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess},
			Handlers:       []extension.DiscoveredHandler{{Name: "gate", RequestHook: extension.HookReference{APIVersion: "hooks.test.admitkit.io/v1alpha1", Hook: "BeforeUpgrade"}}},
		})(w, r)
	}))
	caller := newCaller(t, extension.NewRegistry(), extension.Options{Resolver: loopbackResolver(t, srv.URL)})
	discovered, err := caller.Discover(context.Background(), extension.ExtensionServer{
		Name: "runtime",
		ClientConfig: extension.ClientConfig{
			Service:  &extension.ServiceReference{Namespace: "hooks", Name: "runtime", Path: "/ext", Port: 8443},
			CABundle: ca.bundle,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "/ext" + discoveryPath(); gotPath != want {
		t.Errorf("discovery path %q, want %q", gotPath, want)
	}
	wantService := &extension.ServiceReference{Namespace: "hooks", Name: "runtime", Path: "/ext/hooks.test.admitkit.io/v1alpha1/beforeupgrade/gate", Port: 8443}
	if diff := cmp.Diff(wantService, discovered[0].ClientConfig.Service); diff != "" {
		t.Errorf("discovered service reference (-want +got):\n%s", diff)
	}
}

func TestDiscoverRejectsInvalidResponses(t *testing.T) {
	hook := extension.HookReference{APIVersion: "hooks.test.admitkit.io/v1alpha1", Hook: "BeforeUpgrade"}
	tests := []struct {
		name     string
		handlers []extension.DiscoveredHandler
		want     string
	}{{
		name:     "duplicate names",
		handlers: []extension.DiscoveredHandler{{Name: "gate", RequestHook: hook}, {Name: "gate", RequestHook: hook}},
		want:     `handlers[1].name: Duplicate value: "gate"`,
	}, {
		name:     "name not a DNS label",
		handlers: []extension.DiscoveredHandler{{Name: "gate.v2", RequestHook: hook}},
		want:     `handlers[0].name: Invalid value: "gate.v2": must not contain dots`,
	}, {
		name:     "timeout above 30",
		handlers: []extension.DiscoveredHandler{{Name: "gate", RequestHook: hook, TimeoutSeconds: ptr[int32](31)}},
		want:     `handlers[0].timeoutSeconds: Invalid value: 31: must be between 0 and 30`,
	}, {
		name:     "negative timeout",
		handlers: []extension.DiscoveredHandler{{Name: "gate", RequestHook: hook, TimeoutSeconds: ptr[int32](-1)}},
		want:     `handlers[0].timeoutSeconds: Invalid value: -1: must be between 0 and 30`,
	}, {
		name:     "unknown failure policy",
		handlers: []extension.DiscoveredHandler{{Name: "gate", RequestHook: hook, FailurePolicy: ptr[extension.FailurePolicy]("Retry")}},
		want:     `handlers[0].failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"`,
	}, {
		name:     "hook without group or name",
		handlers: []extension.DiscoveredHandler{{Name: "gate", RequestHook: extension.HookReference{APIVersion: "v1"}}},
		want:     `handlers[0].requestHook.apiVersion: Invalid value: "v1": must be <group>/<version>; handlers[0].requestHook.hook: Required value: the name of the hook the handler serves`,
	}, {
		name:     "unparsable apiVersion",
		handlers: []extension.DiscoveredHandler{{Name: "gate", RequestHook: extension.HookReference{APIVersion: "a/b/c", Hook: "X"}}},
		want:     `handlers[0].requestHook.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
	}, {
		name:     "hook name that is not an identifier",
		handlers: []extension.DiscoveredHandler{{Name: "gate", RequestHook: extension.HookReference{APIVersion: "g.io/v1", Hook: "X/../../admin"}}},
		want:     `handlers[0].requestHook.hook: Invalid value: "X/../../admin": must be letters and digits, starting with a letter (e.g. BeforeClusterUpgrade)`,
	}, {
		name:     "group that is not a DNS subdomain",
		handlers: []extension.DiscoveredHandler{{Name: "gate", RequestHook: extension.HookReference{APIVersion: "Hooks_IO/v1", Hook: "X"}}},
		want:     `handlers[0].requestHook.apiVersion: Invalid value: "Hooks_IO/v1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
	}, {
		name: "every problem at once",
		handlers: []extension.DiscoveredHandler{
			{Name: "Gate", RequestHook: hook, TimeoutSeconds: ptr[int32](60)},
			{Name: "ok", RequestHook: hook, FailurePolicy: ptr[extension.FailurePolicy]("")},
		},
		want: `handlers[0].name: Invalid value: "Gate": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'); ` +
			`handlers[0].timeoutSeconds: Invalid value: 60: must be between 0 and 30; ` +
			`handlers[1].failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"`,
	}}
	ca := newTestCA(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := ca.serve(t, answer(extension.DiscoveryResponse{
				CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess},
				Handlers:       tt.handlers,
			})).URL
			caller := newCaller(t, extension.NewRegistry(), extension.Options{})
			_, err := caller.Discover(context.Background(), extension.ExtensionServer{
				Name: "upgrades", ClientConfig: extension.ClientConfig{URL: base, CABundle: ca.bundle},
			})
			want := `discovering extension server "upgrades": invalid discovery response: ` + tt.want
			if err == nil || err.Error() != want {
				t.Errorf("error:\n got %v\nwant %s", err, want)
			}
		})
	}
}

func TestDiscoverHasNoFailurePolicy(t *testing.T) {
	ca := newTestCA(t)
	tests := []struct {
		name    string
		handler http.Handler
		check   func(error) bool
		want    string
	}{
		{"calling error", raw(http.StatusServiceUnavailable, "starting"),
			func(err error) bool { var e *extension.CallingError; return errors.As(err, &e) },
			`discovering extension server "upgrades": calling extension "upgrades": HTTP status 503, want 200: body "starting"`},
		{"failure answer", failure("not ready", 0),
			func(err error) bool { var e *extension.FailureError; return errors.As(err, &e) },
			`discovering extension server "upgrades": extension "upgrades" answered Failure: not ready`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := ca.serve(t, tt.handler).URL
			caller := newCaller(t, extension.NewRegistry(), extension.Options{})
			_, err := caller.Discover(context.Background(), extension.ExtensionServer{
				Name: "upgrades", ClientConfig: extension.ClientConfig{URL: base, CABundle: ca.bundle},
			})
			if err == nil || !tt.check(err) || err.Error() != tt.want {
				t.Errorf("error = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestDiscoverValidatesTheServer(t *testing.T) {
	caller := newCaller(t, extension.NewRegistry(), extension.Options{})
	_, err := caller.Discover(context.Background(), extension.ExtensionServer{Name: "upgrades", ClientConfig: extension.ClientConfig{URL: "http://127.0.0.1/"}})
	want := `discovering extension server "upgrades": server.clientConfig.url: Invalid value: "http://127.0.0.1/hooks.admitkit.io/v1alpha1/discovery": scheme must be https, got "http"`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}
