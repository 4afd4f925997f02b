package loadgen_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/admitkit/admit/bench/loadgen"
)

// Two hundred requests at 1000 per second over four keep-alive TLS connections.
func ExampleRun() {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"allowed":true}`))
	}))
	defer server.Close()

	res, err := loadgen.Run(context.Background(), loadgen.Options{
		URL:         server.URL,
		Body:        []byte(`{"kind":"AdmissionReview"}`),
		TLS:         server.Client().Transport.(*http.Transport).TLSClientConfig,
		Connections: 4,
		Rate:        1000,
		MaxRequests: 200,
		MaxDuration: 10 * time.Second,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Completed, res.Failed, res.Percentile(0.99) > 0)
	// Output: 200 0 true
}
