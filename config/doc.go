// Package config loads, defaults and validates admissionregistration.k8s.io/v1
// MutatingWebhookConfigurations and ValidatingWebhookConfigurations as kube-apiserver 1.36 does.
//
// # Loading
//
// Load reads files and directories, Parse reads bytes (standard input), FromObjects takes Go
// values. They all return a Set: the webhook configurations, and every object of another kind
// (Deployments, Services, Namespaces, CRDs...) kept as unstructured for tools that look at a
// webhook's surroundings. Files are read by package manifest, which reads every input of admit:
// each object remembers its Source — file, document and line — so that errors read
// "webhooks.yaml:14: ...".
//
// A program that reads little of the other objects need not hold them: Options.Others sees each
// as it is read and says which the Set keeps, and Options.Around reads the inputs a second time
// once the configurations are known, so that it can keep only what they refer to (admit lint
// does, through lint.Surroundings).
//
// Decisions, each made to behave like kubectl and kube-apiserver:
//
//   - Directories are not read recursively unless Options.Recursive is set (kubectl -R), and
//     only their *.yaml, *.yml and *.json files are read. An input that holds no objects is an
//     error, and so are the files of a kustomize base whose build changes them (package
//     manifest's rules, the same for every command).
//   - Webhook configurations are decoded strictly, always: an unknown or duplicate field is an
//     error naming the field and its line. kubectl validates strictly by default, and a
//     misspelt field (namespaceSelecter) would otherwise silently widen a webhook.
//   - admissionregistration.k8s.io/v1beta1 configurations are refused with an error saying so:
//     the version was removed in Kubernetes 1.22 and its defaults differ from v1's. So are
//     admission policies and bindings of versions other than v1, which 1.36 does not serve by
//     default.
//   - Loaded configurations are defaulted (SetDefaultsMutating, SetDefaultsValidating), as the
//     apiserver defaults what it stores. The dispatcher depends on it: an undefaulted nil
//     namespaceSelector would match nothing, where the default {} matches everything.
//   - Loading does not validate: Set.Validate, ValidateMutating and ValidateValidating do.
//
// # Validation
//
// ValidateMutating and ValidateValidating return the apiserver's field errors for a
// configuration being created, with its field paths and messages, e.g.
//
//	webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds
//
// Match conditions are compiled with the apiserver's CEL environment (package matchconditions).
// WarningsMutating and WarningsValidating return the warnings the apiserver sends on create.
//
// # Files
//
//	load.go          Load: files and directories, read by package manifest
//	parse.go         Parse: objects into a Set, webhook configurations decoded strictly
//	objects.go       FromObjects: Go values
//	set.go           Set, and Set.Validate for everything loaded
//	defaults.go      the v1 defaults
//	validation.go    the apiserver's create-time validation
//	clientconfig.go  the apiserver's checks of a webhook's url and service reference
//	warnings.go      the apiserver's create-time warnings
package config
