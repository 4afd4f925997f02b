// Package typeplan keeps, per Go type, a plan made once by reflection: how values of the type
// are walked. internal/typedjson plans how to decode a type and patch.Typed how to compare two
// values of one; both look plans up on every call and make each once, recursive types included.
//
//	cache.go  Cache: a plan per Go type, made once by a Fill, recursive types included
package typeplan
