package sarif_test

import (
	"encoding/json"
	"fmt"

	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/lint/sarif"
)

func ExampleFromFindings() {
	findings := []lint.Finding{{
		Rule: "D01", Name: "long-timeout", Severity: lint.Warning,
		Kind: "ValidatingWebhookConfiguration", Configuration: "policy", Webhook: "pods.policy.example.com",
		Field: "webhooks[0].timeoutSeconds", File: "deploy/webhooks.yaml", Line: 12,
		Message: "timeoutSeconds is 30", Hint: "set timeoutSeconds to 1-5",
	}}
	log, err := sarif.FromFindings(sarif.Driver{Name: "admit lint"}, lint.Rules(), findings)
	if err != nil {
		fmt.Println(err)
		return
	}
	result, _ := json.MarshalIndent(log.Runs[0].Results[0], "", "  ")
	fmt.Println(string(result))
	// Output:
	// {
	//   "ruleId": "D01",
	//   "ruleIndex": 20,
	//   "level": "warning",
	//   "message": {
	//     "text": "ValidatingWebhookConfiguration \"policy\", webhook \"pods.policy.example.com\", webhooks[0].timeoutSeconds: timeoutSeconds is 30. Fix: set timeoutSeconds to 1-5"
	//   },
	//   "locations": [
	//     {
	//       "physicalLocation": {
	//         "artifactLocation": {
	//           "uri": "deploy/webhooks.yaml"
	//         },
	//         "region": {
	//           "startLine": 12
	//         }
	//       },
	//       "logicalLocations": [
	//         {
	//           "name": "policy",
	//           "fullyQualifiedName": "ValidatingWebhookConfiguration/policy/webhooks[0].timeoutSeconds",
	//           "kind": "resource"
	//         }
	//       ]
	//     }
	//   ]
	// }
}
