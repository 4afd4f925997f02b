// Package conversion serves CRD conversion webhooks: apiextensions.k8s.io/v1 ConversionReview
// requests, answered by converting each object to the desired apiVersion.
//
// Conversions are typed and go through a hub: every served version registers how to convert to
// and from one hub type, so N versions need 2N functions instead of N². Metadata is carried over
// unchanged, as the apiserver requires (it rejects conversions that change anything but labels
// and annotations). The version whose Go type is the hub is registered with AddHubVersion.
//
// webhook.Registry.RegisterConversion serves a Hub beside the admission webhooks, and
// Registry.CRDConversion gives the CustomResourceDefinition's spec.conversion that calls it.
//
//	conversion.go  Hub: the versions and their conversions through the hub type; NewHTTPHandler
package conversion
