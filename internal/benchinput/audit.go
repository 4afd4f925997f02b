package benchinput

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	admissionv1 "k8s.io/api/admission/v1"
)

// WarningWebhook serves a validating webhook that allows every request with warning, over TLS
// with HTTP/2 as kube-apiserver calls webhooks, and keeps nothing of the calls (a recording
// server would measure its records at a hundred thousand objects). It returns its URL and CA,
// and how to stop it.
func WarningWebhook(warning string) (url string, caBundle []byte, stop func()) {
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true, Warnings: []string{warning}}
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	}))
	server.EnableHTTP2 = true
	server.StartTLS()
	return server.URL, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw}), server.Close
}

// WriteAuditProposal writes the proposal the audit benchmarks audit with in dir and returns its
// path: a ValidatingAdmissionPolicy that caps Deployments at five replicas, and a validating
// webhook on Pods' creates and updates at url (WarningWebhook's), which warns of every one.
func WriteAuditProposal(dir, url string, caBundle []byte) (string, error) {
	proposal := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-cap}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
  - expression: "object.spec.replicas <= 5"
    message: "at most 5 replicas"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-cap}
spec: {policyName: replica-cap, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: pod-labels}
webhooks:
- name: pod-labels.example.com
  clientConfig:
    url: "` + url + `/validate"
    caBundle: ` + base64.StdEncoding.EncodeToString(caBundle) + `
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
`
	path := filepath.Join(dir, "proposal.yaml")
	return path, os.WriteFile(path, []byte(proposal), 0o600)
}
