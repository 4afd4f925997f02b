package extension_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/extension"
)

// FuzzDecodeResponse feeds arbitrary bodies to the response decoder. Whatever it accepts must
// have a known status and a non-negative RetryAfter, and must survive a round trip unchanged.
// Seeds live in testdata/fuzz/FuzzDecodeResponse.
func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"status":"Success"}`))
	f.Add([]byte(`{"status":"Failure","message":"no","retryAfterSeconds":5,"note":"x"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var resp upgradeResponse
		if err := extension.DecodeResponse(body, &resp); err != nil {
			return
		}
		if resp.Status != extension.StatusSuccess && resp.Status != extension.StatusFailure {
			t.Fatalf("accepted status %q", resp.Status)
		}
		if resp.RetryAfterSeconds < 0 {
			t.Fatalf("accepted retryAfterSeconds %d", resp.RetryAfterSeconds)
		}
		encoded, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("re-encoding an accepted response: %v", err)
		}
		var again upgradeResponse
		if err := extension.DecodeResponse(encoded, &again); err != nil {
			t.Fatalf("decoding %s, the re-encoding of an accepted response: %v", encoded, err)
		}
		if diff := cmp.Diff(resp, again); diff != "" {
			t.Fatalf("round trip changed the response (-first +second):\n%s", diff)
		}
	})
}

// FuzzDiscoveryResponse checks that every discovery response the validation accepts yields
// extensions the registry accepts too, one per handler: validation never lets through what
// registration would refuse, and never panics.
func FuzzDiscoveryResponse(f *testing.F) {
	f.Add([]byte(`{"status":"Success","handlers":[{"name":"gate","requestHook":{"apiVersion":"hooks.example.io/v1","hook":"BeforeUpgrade"},"timeoutSeconds":30,"failurePolicy":"Ignore"}]}`))
	f.Add([]byte(`{"status":"Success","handlers":[{"name":"a","requestHook":{"apiVersion":"g/v","hook":"H"}},{"name":"a","requestHook":{"apiVersion":"g/v","hook":"H"}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var resp extension.DiscoveryResponse
		if err := extension.DecodeResponse(body, &resp); err != nil {
			return
		}
		server := extension.ExtensionServer{Name: "fuzz", ClientConfig: extension.ClientConfig{URL: "https://127.0.0.1:9443/base"}}
		extensions, err := extension.ExtensionsFromHandlers(server, resp.Handlers)
		if err != nil {
			return
		}
		if len(extensions) != len(resp.Handlers) {
			t.Fatalf("%d handlers became %d extensions", len(resp.Handlers), len(extensions))
		}
		if err := extension.NewRegistry().Register(extensions...); err != nil {
			t.Fatalf("discovery accepted handlers the registry refuses: %v", err)
		}
	})
}
