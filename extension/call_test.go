package extension_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/admitkit/admit/extension"
)

func callOne(t *testing.T, caller *extension.Caller, name, namespace string) (*upgradeResponse, error) {
	t.Helper()
	return extension.Call[upgradeResponse](context.Background(), caller, name,
		extension.Request{Hook: upgradeHook(), Namespace: namespace, Body: upgradeRequest{Version: "v1.36.0"}})
}

func TestCallSuccessDecodesTheWholeResponseAndSendsTheRequest(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	var got upgradeRequest
	var contentType string
	base := ca.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contentType = r.Header.Get("Content-Type")
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Errorf("server decoding request: %v", err)
		}
		answer(upgradeResponse{CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess, Message: "fine", RetryAfterSeconds: 4}, Note: "checked"})(w, r)
	})).URL
	caller := newCaller(t, register(t, urlExtension("upgrader", base, ca, failPolicy)), extension.Options{})

	resp, err := callOne(t, caller, "upgrader", "")
	if err != nil {
		t.Fatal(err)
	}
	want := &upgradeResponse{CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess, Message: "fine", RetryAfterSeconds: 4}, Note: "checked"}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(upgradeRequest{Version: "v1.36.0"}, got); diff != "" {
		t.Errorf("request the extension received (-want +got):\n%s", diff)
	}
	if contentType != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", contentType)
	}
}

func TestCallFailureReturnsTheResponseAndFailureError(t *testing.T) {
	ca := newTestCA(t)
	base := ca.serve(t, failure("version skew too large", 0)).URL
	for _, policy := range []extension.FailurePolicy{failPolicy, ignore} {
		t.Run(string(policy), func(t *testing.T) {
			caller := newCaller(t, register(t, urlExtension("upgrader", base, ca, policy)), extension.Options{})
			resp, err := callOne(t, caller, "upgrader", "")
			var failed *extension.FailureError
			if !errors.As(err, &failed) {
				t.Fatalf("error = %v (%T), want *FailureError whatever the policy", err, err)
			}
			want := &extension.FailureError{Extension: "upgrader", Hook: upgradeHook(), Message: "version skew too large"}
			if diff := cmp.Diff(want, failed); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if resp == nil || resp.Status != extension.StatusFailure {
				t.Errorf("response = %+v, want the Failure answer", resp)
			}
		})
	}
}

// TestCallCallingErrors covers each way of failing to get a valid answer, under both policies.
func TestCallCallingErrors(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	otherCA := newTestCA(t)
	mux := http.NewServeMux()
	mux.Handle("/500", raw(http.StatusInternalServerError, strings.Repeat("x", 600)))
	mux.Handle("/not-json", raw(http.StatusOK, "<html>"))
	mux.Handle("/empty", raw(http.StatusOK, ""))
	mux.Handle("/no-status", raw(http.StatusOK, `{"message":"hi"}`))
	mux.Handle("/negative-retry", raw(http.StatusOK, `{"status":"Success","retryAfterSeconds":-1}`))
	mux.Handle("/huge", raw(http.StatusOK, `{"status":"Success","message":"`+strings.Repeat("x", 2048)+`"}`))
	mux.Handle("/redirect", http.RedirectHandler("/target", http.StatusFound))
	h := &hits{}
	base := ca.serve(t, h.wrap(mux)).URL
	closedURL := "https://" + closedAddress(t) + "/"

	tests := []struct {
		name       string
		url        string
		caBundle   []byte
		reason     extension.CallingErrorReason
		statusCode int
		cause      string // substring of the error
	}{
		{"non-200 with long body", base + "/500", nil, extension.ReasonHTTPStatus, 500, `HTTP status 500, want 200: body "` + strings.Repeat("x", 512) + `..."`},
		{"body not JSON", base + "/not-json", nil, extension.ReasonDecode, 200, "decoding response: invalid character '<'"},
		{"empty body", base + "/empty", nil, extension.ReasonDecode, 200, "decoding response: unexpected end of JSON input"},
		{"no status", base + "/no-status", nil, extension.ReasonDecode, 200, "response has no status"},
		{"negative retryAfterSeconds", base + "/negative-retry", nil, extension.ReasonDecode, 200, "negative retryAfterSeconds -1"},
		{"body too large", base + "/huge", nil, extension.ReasonResponseTooLarge, 200, "response body exceeds 1024 bytes"},
		{"redirect refused", base + "/redirect", nil, extension.ReasonHTTPStatus, 302, `redirect to "/target" refused`},
		{"connection refused", closedURL, nil, extension.ReasonTransport, 0, "connection refused"},
		{"untrusted certificate", base + "/500", otherCA.bundle, extension.ReasonTransport, 0, "certificate signed by unknown authority"},
	}
	for _, tt := range tests {
		for _, policy := range []extension.FailurePolicy{failPolicy, ignore} {
			t.Run(tt.name+"/"+string(policy), func(t *testing.T) {
				ext := urlExtension("upgrader", tt.url, ca, policy)
				if tt.caBundle != nil {
					ext.ClientConfig.CABundle = tt.caBundle
				}
				caller := newCaller(t, register(t, ext), extension.Options{MaxResponseBytes: 1024})
				resp, err := callOne(t, caller, "upgrader", "")
				if policy == ignore {
					if err != nil {
						t.Fatalf("with Ignore: error %v, want none", err)
					}
					want := &upgradeResponse{CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess}}
					if diff := cmp.Diff(want, resp); diff != "" {
						t.Errorf("with Ignore the response must be a bare Success (-want +got):\n%s", diff)
					}
					return
				}
				var calling *extension.CallingError
				if !errors.As(err, &calling) {
					t.Fatalf("error = %v (%T), want *CallingError", err, err)
				}
				if resp != nil {
					t.Errorf("response = %+v, want nil after a calling error", resp)
				}
				got := []any{calling.Extension, calling.Hook, calling.Reason, calling.StatusCode}
				want := []any{"upgrader", upgradeHook(), tt.reason, tt.statusCode}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("error fields (-want +got):\n%s", diff)
				}
				if !strings.Contains(err.Error(), tt.cause) || !strings.HasPrefix(err.Error(), `calling extension "upgrader": `) {
					t.Errorf("error %q, want it to name the extension and contain %q", err, tt.cause)
				}
			})
		}
	}
	if got := h.of("/target"); got != 0 {
		t.Errorf("redirect target called %d times, want 0", got)
	}
}

// closedAddress returns a loopback address nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// waitForCancel is an extension that never answers: it waits until the caller gives up, then
// drops the connection without a response. (Returning normally would send an empty 200, which
// can race the client's own cancellation and reach it as an undecodable answer.) It reads the
// request first: net/http notices a closed connection only once the body is consumed.
func waitForCancel(_ http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
	panic(http.ErrAbortHandler)
}

func TestCallExtensionTimeout(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	h := &hits{}
	base := ca.serve(t, h.wrap(http.HandlerFunc(waitForCancel))).URL
	for _, policy := range []extension.FailurePolicy{failPolicy, ignore} {
		t.Run(string(policy), func(t *testing.T) {
			ext := urlExtension("slow", base+"/slow", ca, policy)
			ext.Timeout = time.Second
			caller := newCaller(t, register(t, ext), extension.Options{})
			resp, err := callOne(t, caller, "slow", "")
			if policy == ignore {
				if err != nil || resp.Status != extension.StatusSuccess {
					t.Fatalf("with Ignore: response %+v, error %v; want Success and no error", resp, err)
				}
				return
			}
			var calling *extension.CallingError
			if !errors.As(err, &calling) || calling.Reason != extension.ReasonTimeout {
				t.Fatalf("error = %v, want *CallingError with reason %q", err, extension.ReasonTimeout)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
			}
			if want := "no answer within the extension's timeout of 1s"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q, want it to contain %q", err, want)
			}
		})
	}
}

// TestCallCallerDeadlineIsNeverIgnored: Ignore covers the extension's failures, not the caller
// giving up.
func TestCallCallerDeadlineIsNeverIgnored(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	h := &hits{}
	base := ca.serve(t, h.wrap(http.HandlerFunc(waitForCancel))).URL
	caller := newCaller(t, register(t, urlExtension("slow", base+"/slow", ca, ignore)), extension.Options{})

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	resp, err := extension.Call[upgradeResponse](ctx, caller, "slow", extension.Request{Hook: upgradeHook()})
	var calling *extension.CallingError
	if !errors.As(err, &calling) || calling.Reason != extension.ReasonCallerContext {
		t.Fatalf("error = %v, want *CallingError with reason %q", err, extension.ReasonCallerContext)
	}
	if !errors.Is(err, context.DeadlineExceeded) || resp != nil {
		t.Errorf("response %v, error %v: want no response and an error wrapping context.DeadlineExceeded", resp, err)
	}
}

func TestCallAlreadyCancelledContext(t *testing.T) {
	ca := newTestCA(t)
	h := &hits{}
	base := ca.serve(t, h.wrap(success(0))).URL
	caller := newCaller(t, register(t, urlExtension("upgrader", base+"/x", ca, ignore)), extension.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := extension.Call[upgradeResponse](ctx, caller, "upgrader", extension.Request{Hook: upgradeHook()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want one wrapping context.Canceled", err)
	}
	if got := h.of("/x"); got != 0 {
		t.Errorf("extension called %d times with a cancelled context", got)
	}
}

func TestCallTimeoutQuery(t *testing.T) {
	ca := newTestCA(t)
	h := &hits{}
	base := ca.serve(t, h.wrap(success(0))).URL
	short := urlExtension("short", base+"/short", ca, failPolicy)
	short.Timeout = 7 * time.Second
	long := urlExtension("long", base+"/long", ca, failPolicy)
	long.Timeout = 30 * time.Second
	caller := newCaller(t, register(t, short, long, urlExtension("default", base+"/default", ca, failPolicy)), extension.Options{})

	for _, name := range []string{"short", "default"} {
		if _, err := callOne(t, caller, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	// The caller's deadline is shorter than the extension's timeout, so it wins.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := extension.Call[upgradeResponse](ctx, caller, "long", extension.Request{Hook: upgradeHook()}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"short": h.timeoutOf("/short"), "default": h.timeoutOf("/default")}
	want := map[string]string{"short": "7s", "default": "10s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("?timeout= per extension (-want +got):\n%s", diff)
	}
	// Whole seconds left of the caller's 20s, however slow this machine was to get there.
	if left, err := time.ParseDuration(h.timeoutOf("/long")); err != nil || left > 20*time.Second || left < 15*time.Second {
		t.Errorf("?timeout= %q for the caller's 20s deadline, want 20s or a little less", h.timeoutOf("/long"))
	}
}

func TestCallPlainErrors(t *testing.T) {
	ca := newTestCA(t)
	registry := register(t, urlExtension("upgrader", "https://127.0.0.1:1/", ca, ignore))
	caller := newCaller(t, registry, extension.Options{})
	otherHook := extension.Hook{Group: "hooks.test.admitkit.io", Version: "v1alpha1", Name: "AfterUpgrade"}
	tests := []struct {
		name string
		ext  string
		req  extension.Request
		want string
	}{
		{"unknown extension", "nobody", extension.Request{Hook: upgradeHook()}, `calling extension "nobody": not registered`},
		{"hook mismatch", "upgrader", extension.Request{Hook: otherHook},
			`calling extension "upgrader": it serves hook hooks.test.admitkit.io/v1alpha1/BeforeUpgrade, not hooks.test.admitkit.io/v1alpha1/AfterUpgrade`},
		{"unencodable request", "upgrader", extension.Request{Hook: upgradeHook(), Body: func() {}},
			`calling extension "upgrader": encoding request for hook hooks.test.admitkit.io/v1alpha1/BeforeUpgrade: json: unsupported type: func()`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := extension.Call[upgradeResponse](context.Background(), caller, tt.ext, tt.req)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v, want %s", err, tt.want)
			}
			var calling *extension.CallingError
			if errors.As(err, &calling) {
				t.Errorf("error is an CallingError; such errors must not be subject to failurePolicy")
			}
		})
	}
}

// staticNamespaces labels namespaces from a map; lookups of other namespaces fail.
func staticNamespaces(t *testing.T, known map[string]labels.Set) extension.NamespaceLabeler {
	return extension.NamespaceLabelsFunc(func(_ context.Context, namespace string) (labels.Set, error) {
		if namespace == "" {
			t.Errorf("namespace labels looked up for a cluster-scoped request")
		}
		set, ok := known[namespace]
		if !ok {
			return nil, fmt.Errorf("namespace %q not found", namespace)
		}
		return set, nil
	})
}

func TestNamespaceSelector(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	h := &hits{}
	base := ca.serve(t, h.wrap(success(0))).URL
	optedIn := urlExtension("opted-in", base+"/opted-in", ca, failPolicy)
	optedIn.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"upgrade-hooks": "enabled"}}
	everywhere := urlExtension("everywhere", base+"/everywhere", ca, failPolicy)
	everywhere.NamespaceSelector = &metav1.LabelSelector{}
	registry := register(t, optedIn, everywhere)
	namespaces := staticNamespaces(t, map[string]labels.Set{
		"team-a": {"upgrade-hooks": "enabled"},
		"team-b": {},
	})
	caller := newCaller(t, registry, extension.Options{Namespaces: namespaces})

	tests := []struct {
		namespace  string
		wantCalled []string // by CallAll, in order
	}{
		{"team-a", []string{"everywhere", "opted-in"}},
		{"team-b", []string{"everywhere"}},
		{"", []string{"everywhere", "opted-in"}}, // cluster-scoped: selectors do not apply
	}
	for _, tt := range tests {
		t.Run("CallAll in "+tt.namespace, func(t *testing.T) {
			agg, err := extension.CallAll[upgradeResponse](context.Background(), caller,
				extension.Request{Hook: upgradeHook(), Namespace: tt.namespace})
			if err != nil {
				t.Fatal(err)
			}
			var called []string
			for _, r := range agg.Results {
				called = append(called, r.Extension)
			}
			if diff := cmp.Diff(tt.wantCalled, called); diff != "" {
				t.Errorf("extensions called (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("Call of a non-selected extension", func(t *testing.T) {
		before := h.of("/opted-in")
		_, err := callOne(t, caller, "opted-in", "team-b")
		var notSelected *extension.NotSelectedError
		if !errors.As(err, &notSelected) || notSelected.Extension != "opted-in" || notSelected.Namespace != "team-b" {
			t.Fatalf("error = %v, want *NotSelectedError for opted-in in team-b", err)
		}
		if h.of("/opted-in") != before {
			t.Errorf("a non-selected extension was called")
		}
	})

	t.Run("lookup error fails the call before any extension is called", func(t *testing.T) {
		before := h.of("/everywhere")
		_, err := extension.CallAll[upgradeResponse](context.Background(), caller, extension.Request{Hook: upgradeHook(), Namespace: "gone"})
		want := `calling extensions for hook hooks.test.admitkit.io/v1alpha1/BeforeUpgrade: looking up labels of namespace "gone": namespace "gone" not found`
		if err == nil || err.Error() != want {
			t.Errorf("error = %v, want %s", err, want)
		}
		if h.of("/everywhere") != before {
			t.Errorf("an extension was called although the namespace lookup failed")
		}
	})

	t.Run("no labeler for a selector", func(t *testing.T) {
		bare := newCaller(t, registry, extension.Options{})
		_, err := callOne(t, bare, "opted-in", "team-a")
		want := `calling extension "opted-in": extension "opted-in" has a namespaceSelector but the caller has no NamespaceLabeler (Options.Namespaces)`
		if err == nil || err.Error() != want {
			t.Errorf("error = %v, want %s", err, want)
		}
	})
}

func TestServiceReference(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t, "upgrader.hooks.svc")
	h := &hits{}
	srv := ca.serve(t, h.wrap(success(0)))
	serverURL, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	// The resolver sends the request to the test server; TLS still verifies <name>.<namespace>.svc.
	var resolved []extension.ServiceReference
	resolver := extension.ServiceResolver(func(_ context.Context, svc extension.ServiceReference) (*url.URL, error) {
		resolved = append(resolved, svc)
		if svc.Namespace == "void" {
			return nil, nil // a broken resolver
		}
		if svc.Namespace != "hooks" {
			return nil, fmt.Errorf("no endpoints available for service %q", svc.Name)
		}
		return &url.URL{Scheme: "https", Host: serverURL.Host, Path: svc.Path}, nil
	})
	service := func(name, namespace string, policy extension.FailurePolicy) extension.Extension {
		return extension.Extension{
			Name: name + "-" + namespace, Hook: upgradeHook(), FailurePolicy: policy,
			ClientConfig: extension.ClientConfig{
				Service:  &extension.ServiceReference{Namespace: namespace, Name: name, Path: "/upgrade", Port: 8443},
				CABundle: ca.bundle,
			},
		}
	}
	registry := register(t,
		service("upgrader", "hooks", failPolicy),
		service("impostor", "hooks", failPolicy),   // the certificate is not for impostor.hooks.svc
		service("upgrader", "elsewhere", ignore),   // cannot be resolved, ignored
		service("upgrader", "nowhere", failPolicy), // cannot be resolved
		service("upgrader", "void", failPolicy),    // resolves to nothing
	)
	caller := newCaller(t, registry, extension.Options{Resolver: resolver})

	if _, err := callOne(t, caller, "upgrader-hooks", ""); err != nil {
		t.Fatalf("calling through a service reference: %v", err)
	}
	if got := h.of("/upgrade"); got != 1 {
		t.Errorf("service path called %d times, want 1", got)
	}
	if _, err := callOne(t, caller, "upgrader-elsewhere", ""); err != nil {
		t.Errorf("an unresolvable Ignore extension: error %v, want none", err)
	}
	tests := []struct {
		name   string
		reason extension.CallingErrorReason
		cause  string
	}{
		{"impostor-hooks", extension.ReasonTransport, "certificate is valid for upgrader.hooks.svc, not impostor.hooks.svc"},
		{"upgrader-nowhere", extension.ReasonResolve, `resolving service nowhere/upgrader: no endpoints available for service "upgrader"`},
		{"upgrader-void", extension.ReasonResolve, `resolving service void/upgrader: the resolver returned no URL`},
	}
	for _, tt := range tests {
		_, err := callOne(t, caller, tt.name, "")
		var calling *extension.CallingError
		if !errors.As(err, &calling) || calling.Reason != tt.reason || !strings.Contains(err.Error(), tt.cause) {
			t.Errorf("%s: error = %v, want a %q calling error containing %q", tt.name, err, tt.reason, tt.cause)
		}
	}
	if got, want := resolved[0], (extension.ServiceReference{Namespace: "hooks", Name: "upgrader", Path: "/upgrade", Port: 8443}); got != want {
		t.Errorf("resolver got %+v, want %+v", got, want)
	}
}

func TestClusterDNS(t *testing.T) {
	tests := []struct {
		svc  extension.ServiceReference
		want string
	}{
		{extension.ServiceReference{Namespace: "hooks", Name: "upgrader", Path: "/x", Port: 8443}, "https://upgrader.hooks.svc:8443/x"},
		{extension.ServiceReference{Namespace: "hooks", Name: "upgrader"}, "https://upgrader.hooks.svc:443"},
	}
	for _, tt := range tests {
		got, err := extension.ClusterDNS(context.Background(), tt.svc)
		if err != nil || got.String() != tt.want {
			t.Errorf("ClusterDNS(%+v) = %v, %v; want %s", tt.svc, got, err, tt.want)
		}
	}
}

func TestHTTPClientsAreSharedPerCABundleAndServerName(t *testing.T) {
	ca := newTestCA(t)
	other := newTestCA(t)
	base := ca.serve(t, success(0)).URL
	otherBase := other.serve(t, success(0)).URL
	caller := newCaller(t, register(t,
		urlExtension("a", base+"/a", ca, failPolicy),
		urlExtension("b", base+"/b", ca, failPolicy),
		urlExtension("c", otherBase+"/c", other, failPolicy),
	), extension.Options{})
	for _, name := range []string{"a", "b", "c", "a"} {
		if _, err := callOne(t, caller, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	if got := extension.HTTPClientCount(caller); got != 2 {
		t.Errorf("%d HTTP clients built, want 2 (one per CA bundle)", got)
	}
}
