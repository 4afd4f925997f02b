package servers_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/bench/servers"
)

// Start a server under test and send it the benchmark's review.
func ExampleStart() {
	dir, err := os.MkdirTemp("", "certs-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	caPEM, err := servers.WriteTLS(dir)
	if err != nil {
		log.Fatal(err)
	}
	running, err := servers.Start(context.Background(), servers.ControllerRuntime, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer running.Stop()

	clientTLS, err := servers.ClientTLS(caPEM)
	if err != nil {
		log.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: clientTLS}}
	podJSON, _ := bench.PodJSON()
	review, _ := bench.AdmissionReview(bench.ReviewUID, podJSON)
	resp, err := client.Post(running.URL+servers.MutatePath, "application/json", bytes.NewReader(review))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status)
	// Output: 200 OK
}
