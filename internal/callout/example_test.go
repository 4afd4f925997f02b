package callout_test

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/admitkit/admit/internal/callout"
)

// One client per TLS identity, and the ?timeout= a call sends.
func Example() {
	var clients callout.Clients[string]
	build := func() (*http.Client, error) {
		return callout.NewClient(callout.ClientOptions{ServerName: "hooks.example"})
	}
	first, _ := clients.Get("hooks.example", build)
	again, _ := clients.Get("hooks.example", build)
	fmt.Println(first == again, clients.Len())

	u, _ := url.Parse("https://hooks.example/validate")
	fmt.Println(callout.WithTimeout(u, 9500*time.Millisecond))
	// Output:
	// true 1
	// https://hooks.example/validate?timeout=10s
}
