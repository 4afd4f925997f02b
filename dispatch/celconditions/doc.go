// Package celconditions plugs package matchconditions — kube-apiserver's CEL environment for
// webhooks' matchConditions — into a dispatcher (dispatch.Options.Conditions). It is a package
// of its own so that the dispatcher links CEL only when a program asks for it, and so that
// matchconditions, which the configuration loader and the chain use too, links no dispatcher.
//
//	compiler.go  Compiler: the dispatcher's condition compiler, failurePolicy Ignore applied to
//	             evaluation errors as the apiserver applies it
package celconditions
