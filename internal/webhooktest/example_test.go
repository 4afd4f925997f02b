package webhooktest_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/internal/webhooktest"
)

// Paths choose what a webhook answers; values are escaped, and parameters follow the behaviour.
func Example_paths() {
	fmt.Println(webhooktest.Allow(webhooktest.Warning("deprecated field"), webhooktest.AuditAnnotation("team", "a")))
	fmt.Println(webhooktest.Deny(webhooktest.Code(403), webhooktest.Reason(metav1.StatusReasonForbidden), webhooktest.Message("you shall not pass")))
	fmt.Println(webhooktest.SetLabel("tier", "gold"))
	fmt.Println(webhooktest.Sleep(1500 * time.Millisecond))
	// Output:
	// /allow/warning=deprecated%20field/annotation=team=a
	// /deny/code=403/reason=Forbidden/message=you%20shall%20not%20pass
	// /setLabel/tier/gold
	// /sleep/1.5s
}

// A server is configured into webhooks through ClientConfig, and counts the calls of each path.
func ExampleServer() {
	s, err := webhooktest.NewServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	cc := s.ClientConfig(webhooktest.PathAllow)
	fmt.Println(*cc.URL == s.URL+"/allow", len(cc.CABundle) > 0, s.Calls(webhooktest.PathAllow))
	// Output: true true 0
}
