// Package convertmeta keeps of a converted object's metadata what kube-apiserver keeps of a
// conversion webhook's answer, and refuses what it refuses, so that package conversion answers
// as the cluster will store, and package webhooktest fails a test where the cluster would fail a
// conversion.
//
//	convertmeta.go  Merge: the original metadata with the converted labels and annotations, checked
package convertmeta
