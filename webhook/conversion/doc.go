// Package conversion serves CRD conversion webhooks: apiextensions.k8s.io/v1 ConversionReview
// requests, answered by converting each object to the desired apiVersion.
//
// Conversions are typed and go through a hub: every served version registers how to convert to
// and from one hub type, so N versions need 2N functions instead of N². The version whose Go type
// is the hub is registered with AddHubVersion.
//
// Metadata follows kube-apiserver, which keeps only the labels and annotations of a conversion
// webhook's answer and takes the rest from the original object. The conversion functions need not
// copy metadata: each starts from a value whose metadata is already the source's. The converted
// object's labels and annotations are what the functions leave, so a version lacking a field can
// keep it in an annotation and a round trip loses nothing; every other change the functions make
// to metadata is ignored. Changed labels and annotations are validated as kube-apiserver validates
// them, and invalid ones fail the conversion.
//
// webhook.Registry.RegisterConversion serves a Hub beside the admission webhooks, and
// Registry.CRDConversion gives the CustomResourceDefinition's spec.conversion that calls it.
//
//	conversion.go  Hub: the versions and their conversions through the hub type; NewHTTPHandler
//	metadata.go    the metadata the functions start from, found by the JSON names of the Go types
//	               (the converted object's: internal/convertmeta, as kube-apiserver keeps it)
package conversion
