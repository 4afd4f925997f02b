// Package devsession points a cluster's webhooks at a server on this machine, as `admit dev`
// does: a Session copies webhook configurations under a prefix, each webhook calling the same
// path on a base URL with a CA bundle of its own, labelled so that the session's copies (or every
// session's) can be found and deleted again.
//
//	devsession.go  Session, Rewrite: the copies; Apply, Delete, DeleteAll: in the cluster
package devsession
