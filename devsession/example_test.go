package devsession_test

import (
	"fmt"
	"net/url"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/devsession"
)

// A webhook configuration pointed at a server on this machine, its path kept.
func ExampleSession_Rewrite() {
	set, err := config.Parse("webhooks.yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: shop}
webhooks:
- name: checks.shop.example.com
  clientConfig: {service: {name: shop-webhook, namespace: shop, path: /validate-orders}}
  sideEffects: None
  admissionReviewVersions: [v1]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	session := devsession.Session{ID: "s1", Prefix: "dev-", Base: url.URL{Scheme: "https", Host: "192.168.1.20:9443"}}
	_, validating := session.Rewrite(set)
	fmt.Println(validating[0].Name, *validating[0].Webhooks[0].ClientConfig.URL)
	// Output: dev-shop https://192.168.1.20:9443/validate-orders
}
