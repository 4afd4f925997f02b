// Package v2 is caching.example.com/v2, the version of Cache that is stored and that
// conversions go through (the hub): a number of replicas and the memory of each.
//
// An operator generates the deep copies with controller-gen; they are written by hand here to
// keep the example free of generated files.
//
//	cache.go  Cache, CacheSpec, AddToScheme
package v2
