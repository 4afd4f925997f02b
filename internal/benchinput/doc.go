// Package benchinput writes the inputs the benchmarks review and send to a real kube-apiserver
// alike, so that their figures are of the same objects: a kustomize-shaped build and the
// admission policy that refuses some of it.
package benchinput
