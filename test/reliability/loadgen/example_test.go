package loadgen_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/admitkit/admit/test/reliability/loadgen"
)

func ExampleRun() {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"allowed":true}`))
	}))
	defer server.Close()

	report, err := loadgen.Run(context.Background(), loadgen.Options{
		NewRequest: func(int) (*http.Request, error) {
			return http.NewRequest(http.MethodPost, server.URL, strings.NewReader(`{}`))
		},
		TLS:         server.Client().Transport.(*http.Transport).TLSClientConfig,
		Rate:        50,
		Duration:    200 * time.Millisecond,
		Connections: 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(report.Records), "requests:", report.Count(loadgen.OK), "ok,", report.Count(loadgen.Broken), "broken")
	// Output:
	// 10 requests: 10 ok, 0 broken
}
