// Package kinds knows which kinds and resources Kubernetes 1.36 serves in its own API groups,
// and which Go package holds each group's types, so that webhook.Registry can check a
// registration's kind, resource and scope as kube-apiserver would answer them.
//
// The data is a copy of what package resources holds (kube-1.36.json), reduced to what
// registration checks need and written as Go: importing resources would link client-go's
// discovery client and every API group's scheme into each webhook server, doubling its size.
// table_test.go compares table.go with package resources and client-go's scheme, and rewrites
// it with `go test ./webhook/internal/kinds -update`.
//
//	kinds.go  Lookup, BuiltinGroup, ResourceOf, GroupOfPackage, Suggest: questions to the table
//	table.go  the generated table: resources by group, and the API types' Go packages by group
package kinds
