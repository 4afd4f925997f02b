package dispatchers_test

import (
	"context"
	"log"
	"os"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/bench/dispatchers"
	"github.com/admitkit/admit/bench/servers"
	"github.com/admitkit/admit/webhook"
)

// Both dispatchers call the same webhooks; Check verifies what they admit. (Not run here: it
// starts a webhook server.)
func ExampleNewAPIServer() {
	dir, _ := os.MkdirTemp("", "certs-")
	defer os.RemoveAll(dir)
	caPEM, err := servers.WriteTLS(dir)
	if err != nil {
		log.Fatal(err)
	}
	hooksServer, err := servers.Start(context.Background(), servers.Admit, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer hooksServer.Stop()
	registry, _ := servers.AdmitRegistry(webhook.HTTPOptions{})
	hooks, err := dispatchers.NewWebhooks(registry, hooksServer.URL, caPEM)
	if err != nil {
		log.Fatal(err)
	}
	pod, _ := bench.Pod()
	podJSON, _ := bench.PodJSON()

	admit, err := dispatchers.NewAdmit(hooks, podJSON)
	if err != nil {
		log.Fatal(err)
	}
	apiserver, err := dispatchers.NewAPIServer(hooks, pod, caPEM)
	if err != nil {
		log.Fatal(err)
	}
	defer apiserver.Close()
	for _, d := range []dispatchers.Dispatcher{admit, apiserver} {
		if err := d.Check(context.Background()); err != nil {
			log.Fatal(err)
		}
	}
}
