package matchconditions_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/matchconditions"
)

func ExampleCompile() {
	matcher, err := matchconditions.Compile([]admissionregistrationv1.MatchCondition{
		{Name: "not-skip-me", Expression: "object.metadata.name != 'skip-me'"},
		{Name: "not-kube-system", Expression: "request.namespace != 'kube-system'"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	request := &admissionv1.AdmissionRequest{
		Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Namespace: "default",
		Operation: admissionv1.Create,
		UserInfo:  authenticationv1.UserInfo{Username: "alice"},
	}
	for _, name := range []string{"settings", "skip-me"} {
		request.Name = name
		object := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`)
		result, err := matcher.Match(context.Background(), matchconditions.Input{Request: request, Object: object})
		fmt.Printf("%s: matched=%t false=%q err=%v\n", name, result.Matched, result.FalseCondition, err)
	}
	// Output:
	// settings: matched=true false="" err=<nil>
	// skip-me: matched=false false="not-skip-me" err=<nil>
}

func ExampleMatcher_Match_error() {
	matcher, err := matchconditions.Compile([]admissionregistrationv1.MatchCondition{
		{Name: "team-label", Expression: "object.metadata.labels['team'] == 'payments'"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	request := &admissionv1.AdmissionRequest{Name: "unlabelled", Operation: admissionv1.Create}
	_, err = matcher.Match(context.Background(), matchconditions.Input{
		Request: request,
		Object:  []byte(`{"metadata":{"name":"unlabelled"}}`),
	})
	// With failurePolicy Fail the dispatcher rejects the request with this error (wrapped by
	// apierrors.NewForbidden); with Ignore it skips the webhook.
	fmt.Println(err)
	fmt.Println(matchconditions.EvaluationErrors(err), "condition failed to evaluate")
	// Output:
	// expression 'object.metadata.labels['team'] == 'payments'' resulted in error: no such key: labels
	// 1 condition failed to evaluate
}

func ExampleValidate() {
	errs := matchconditions.Validate([]admissionregistrationv1.MatchCondition{
		{Name: "ok", Expression: "request.operation == 'CREATE'"},
		{Name: "ok", Expression: "object.spec"},
	}, field.NewPath("webhooks").Index(0).Child("matchConditions"))
	for _, err := range errs {
		fmt.Println(err)
	}
	// Output:
	// webhooks[0].matchConditions[1].expression: Invalid value: "object.spec": must evaluate to bool but got dyn
	// webhooks[0].matchConditions[1].name: Duplicate value: "ok"
}
