// Package v1 is a custom API group, widgets.example.com/v1, for webhook's tests: the
// registration checks read a custom type's kind from its name and versioned package, or from
// a Scheme.
//
//	types.go  GroupVersion, AddToScheme, Widget (registered), Gadget (not registered)
package v1
