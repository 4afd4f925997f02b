package reliability

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/admitkit/admit/extension"
)

// gateResponse is the response type of the extension scenarios' hook.
type gateResponse struct {
	extension.CommonResponse
}

var gateHook = extension.Hook{Group: "hooks.reliability.admit.dev", Version: "v1", Name: "BeforeUpgrade"}

// hostileExtensions calls extensions that hang, reset the connection, answer
// garbage or HTML, redirect, or answer too much or too slowly, once with each failure policy,
// then all of them at once through CallAll. Promises: with Fail, a typed calling error with the
// right reason; with Ignore, a bare Success; the extension's timeout ends every call; redirects
// are not followed; CallAll hears every extension and reports every calling error; no goroutine
// outlives the caller.
func hostileExtensions(t *testing.T, m *measurements) {
	h := startHostileServer(t)
	cases := []struct {
		behaviour string
		reason    extension.CallingErrorReason
	}{
		{"hang", extension.ReasonTimeout},
		{"reset", extension.ReasonTransport},
		{"garbage", extension.ReasonDecode},
		{"html", extension.ReasonDecode},
		{"redirect", extension.ReasonHTTPStatus},
		{"huge", extension.ReasonResponseTooLarge},
		{"drip", extension.ReasonTimeout},
	}
	registry := extension.NewRegistry()
	for _, c := range cases {
		for _, policy := range []extension.FailurePolicy{extension.FailurePolicyFail, extension.FailurePolicyIgnore} {
			err := registry.Register(extension.Extension{
				Name: extensionName(c.behaviour, policy), Hook: gateHook, Timeout: extensionTimeout(c.behaviour), FailurePolicy: policy,
				ClientConfig: extension.ClientConfig{URL: h.path("extension", c.behaviour), CABundle: h.caBundle},
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	caller, err := extension.NewCaller(registry, extension.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(caller.Close)
	req := extension.Request{Hook: gateHook, Body: map[string]string{"toVersion": "v1.36.0"}}

	t.Run("Call", func(t *testing.T) {
		var calls []subtest
		for _, c := range cases {
			for _, policy := range []extension.FailurePolicy{extension.FailurePolicyFail, extension.FailurePolicyIgnore} {
				calls = append(calls, subtest{c.behaviour + "/" + string(policy), func(t *testing.T) {
					resp, err := callWithin(t, func() (*gateResponse, error) {
						return extension.Call[gateResponse](context.Background(), caller, extensionName(c.behaviour, policy), req)
					})
					if policy == extension.FailurePolicyIgnore {
						if err != nil || resp == nil || resp.Status != extension.StatusSuccess || resp.Message != "" {
							t.Errorf("Ignore: got %+v, %v; want a bare Success and no error", resp, err)
						}
						return
					}
					var calling *extension.CallingError
					if !errors.As(err, &calling) || resp != nil {
						t.Fatalf("Fail: got %+v, %v; want no response and an CallingError", resp, err)
					}
					if calling.Reason != c.reason || calling.Extension != extensionName(c.behaviour, policy) {
						t.Errorf("Fail: %s error from %s (%v); want reason %s", calling.Reason, calling.Extension, err, c.reason)
					}
				}})
			}
		}
		passed := runConcurrently(t, calls...)
		m.Logf("Call: %d of %d cases (%d misbehaviours × Fail and Ignore) as promised", passed, len(calls), len(cases))
	})

	t.Run("CallAll", func(t *testing.T) {
		agg, err := callWithin(t, func() (*extension.Aggregate[gateResponse], error) {
			return extension.CallAll[gateResponse](context.Background(), caller, req)
		})
		var all *extension.CallAllError
		if !errors.As(err, &all) || len(all.Errors) != len(cases) {
			t.Fatalf("CallAll: %v; want one calling error per extension with failurePolicy Fail (%d)", err, len(cases))
		}
		if agg == nil || len(agg.Results) != 2*len(cases) || agg.Status != extension.StatusFailure {
			t.Fatalf("CallAll aggregate %+v; want a Failure with %d results", agg, 2*len(cases))
		}
		for _, r := range agg.Results {
			ignored := strings.HasSuffix(r.Extension, "-ignore")
			if ignored != (r.Ignored != nil) || ignored == (r.Err != nil) {
				t.Errorf("%s: error %v, ignored %v", r.Extension, r.Err, r.Ignored)
			}
		}
		m.Logf("CallAll heard %d extensions and reported %d calling errors", len(agg.Results), len(all.Errors))
	})

	t.Run("caller deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		resp, err := callWithin(t, func() (*gateResponse, error) {
			return extension.Call[gateResponse](ctx, caller, extensionName("hang", extension.FailurePolicyIgnore), req)
		})
		var calling *extension.CallingError
		if !errors.As(err, &calling) || calling.Reason != extension.ReasonCallerContext || resp != nil {
			t.Errorf("got %+v, %v; want the caller's deadline reported even with failurePolicy Ignore", resp, err)
		}
	})

	if n := h.redirectTarget.Load(); n != 0 {
		t.Errorf("the redirect target was called %d times; redirects must not be followed", n)
	}
}

// extensionTimeout is 1 s where the behaviour is to outlast it, generous elsewhere so that a
// slow machine does not turn another failure into a timeout.
func extensionTimeout(behaviour string) time.Duration {
	if behaviour == "hang" || behaviour == "drip" {
		return time.Second
	}
	return 15 * time.Second
}

func extensionName(behaviour string, policy extension.FailurePolicy) string {
	return behaviour + "-" + strings.ToLower(string(policy))
}

// callWithin runs call and fails the test if it has not returned within 30 s: every extension
// has a timeout of at most 15 s, so a longer call means a timeout was ignored.
func callWithin[T any](t *testing.T, call func() (T, error)) (T, error) {
	t.Helper()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := call()
		done <- outcome{v, err}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-time.After(30 * time.Second):
		t.Fatal("the call has not returned after 30s")
		var zero T
		return zero, nil
	}
}
