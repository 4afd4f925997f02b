package webhook

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// failError marks an error as "could not decide": see Fail.
type failError struct{ err error }

func (e *failError) Error() string { return e.err.Error() }
func (e *failError) Unwrap() error { return e.err }

// Fail marks err as an infrastructure failure rather than a denial: a typed handler returning it
// answers with HTTP 500 so the webhook's failurePolicy decides (Ignore admits, Fail rejects).
// Use it when the webhook cannot reach a dependency, not when the object is bad.
func Fail(err error) error {
	if err == nil {
		err = errors.New("webhook failed")
	}
	return &failError{err: err}
}

// IsFail reports whether err, or an error it wraps, was made by Fail.
func IsFail(err error) bool {
	var fe *failError
	return errors.As(err, &fe)
}

// Invalid returns errs as an error that StatusFromError renders as one 422 Invalid status with a
// cause per field error. It returns nil for an empty list, so `return nil, webhook.Invalid(errs)`
// admits a valid object.
func Invalid(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return invalidError(errs)
}

type invalidError field.ErrorList

func (e invalidError) Error() string { return field.ErrorList(e).ToAggregate().Error() }

// StatusFromError turns an error returned by user code into the Response it stands for:
//   - an error made by Fail: Errored (HTTP 500, failurePolicy applies);
//   - an error carrying an API status (apierrors.APIStatus, e.g. from apierrors.NewConflict):
//     denied with that status, unchanged;
//   - field errors (from Invalid, a *field.Error, or field.ErrorList.ToAggregate()): denied with one
//     422 Invalid status naming gk and name, with a cause per field error;
//   - any other error: denied with 403 Forbidden and the error's message.
func StatusFromError(err error, gk schema.GroupKind, name string) Response {
	if err == nil {
		return Allowed()
	}
	if IsFail(err) {
		return Errored(err)
	}
	var withStatus apierrors.APIStatus
	if errors.As(err, &withStatus) {
		return DeniedWithStatus(withStatus.Status())
	}
	if errs, ok := fieldErrors(err); ok {
		return DeniedWithStatus(apierrors.NewInvalid(gk, name, errs).Status())
	}
	return DeniedWithStatus(metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: err.Error()})
}

// fieldErrors finds field errors in err: an Invalid error, a single *field.Error, or an aggregate
// made only of field errors (what field.ErrorList.ToAggregate returns).
func fieldErrors(err error) (field.ErrorList, bool) {
	var list invalidError
	if errors.As(err, &list) {
		return field.ErrorList(list), true
	}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		var errs field.ErrorList
		for _, e := range agg.Errors() {
			var fe *field.Error
			if !errors.As(e, &fe) {
				return nil, false
			}
			errs = append(errs, fe)
		}
		return errs, len(errs) > 0
	}
	var single *field.Error
	if errors.As(err, &single) {
		return field.ErrorList{single}, true
	}
	return nil, false
}

// panicError is what a recovered panic becomes.
type panicError struct{ value any }

func (e panicError) Error() string { return fmt.Sprintf("webhook handler panicked: %v", e.value) }
