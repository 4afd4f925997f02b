package dispatch

import (
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"
)

// verifyResponse applies the apiserver's checks to an answer (v1 strictly, v1beta1 leniently).
func verifyResponse(uid types.UID, version string, mutating bool, review *admissionv1.AdmissionReview) error {
	if review.Response == nil {
		return errors.New("webhook response was absent")
	}
	resp := review.Response
	if version == "v1beta1" {
		if mutating && len(resp.Patch) > 0 {
			jsonPatch := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &jsonPatch
		}
		if !mutating {
			resp.Patch, resp.PatchType = nil, nil
		}
		return nil
	}
	if resp.UID != uid {
		return fmt.Errorf("expected response.uid=%q, got %q", uid, resp.UID)
	}
	if got := review.GroupVersionKind(); got != admissionv1.SchemeGroupVersion.WithKind("AdmissionReview") {
		return fmt.Errorf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s", got.String())
	}
	if mutating {
		switch {
		case len(resp.Patch) > 0 && resp.PatchType == nil:
			return errors.New("webhook returned response.patch but not response.patchType")
		case len(resp.Patch) == 0 && resp.PatchType != nil:
			return errors.New("webhook returned response.patchType but not response.patch")
		case resp.PatchType != nil && *resp.PatchType == "":
			return errors.New(`webhook returned invalid response.patchType of ""`)
		}
		return nil
	}
	if len(resp.Patch) > 0 {
		return errors.New("validating webhook may not return response.patch")
	}
	if resp.PatchType != nil {
		return errors.New("validating webhook may not return response.patchType")
	}
	return nil
}
