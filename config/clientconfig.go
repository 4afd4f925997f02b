package config

import (
	"fmt"
	"net/url"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// urlForm ends the apiserver's messages about a webhook URL.
const urlForm = "; desired format: https://host[/path]"

// validateURL checks a webhook's url the way kube-apiserver does, with its messages: an https
// URL with a host, and no user information, fragment or query.
func validateURL(path *field.Path, raw string) field.ErrorList {
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(path, "url must be a valid URL: "+err.Error()+urlForm)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(path, u.Scheme, "'https' is the only allowed URL scheme"+urlForm))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(path, u.Host, "host must be specified"+urlForm))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(path, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(path, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(path, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// validateService checks a webhook's service reference the way kube-apiserver does. The
// apiserver swaps name and namespace when it calls its check, so a missing namespace is
// reported as "service.name: Required value" and a missing name as "service.namespace": kept,
// because admit reports what kube-apiserver reports. A path must start with "/" and each of its
// segments be a DNS subdomain; one trailing "/" is allowed.
func validateService(path *field.Path, svc *admissionregistrationv1.ServiceReference, port int32) field.ErrorList {
	var errs field.ErrorList
	if svc.Namespace == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	}
	if svc.Name == "" {
		errs = append(errs, field.Required(path.Child("namespace"), ""))
	}
	if problems := validation.IsValidPortNum(int(port)); problems != nil {
		errs = append(errs, field.Invalid(path.Child("port"), port, "port is not valid: "+strings.Join(problems, ", ")))
	}
	if svc.Path == nil {
		return errs
	}
	servicePath := *svc.Path
	pathField := path.Child("path")
	switch servicePath {
	case "", "/":
		return errs
	case "//":
		return append(errs, field.Invalid(pathField, servicePath, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(servicePath, "/") {
		errs = append(errs, field.Invalid(pathField, servicePath, "must start with a '/'"))
	}
	segments := strings.TrimSuffix(servicePath[1:], "/")
	for i, segment := range strings.Split(segments, "/") {
		if segment == "" {
			errs = append(errs, field.Invalid(pathField, servicePath, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, problem := range validation.IsDNS1123Subdomain(segment) {
			errs = append(errs, field.Invalid(pathField, servicePath, fmt.Sprintf("segment[%d]: %v", i, problem)))
		}
	}
	return errs
}
