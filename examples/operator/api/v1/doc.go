// Package v1 is caching.example.com/v1, still served for older clients: a size name instead of
// replicas and memory. Objects are stored as v2 and converted on the way in and out.
//
//	cache.go  Cache, CacheSpec, AddToScheme
package v1
