// Package rulecheck validates a webhook configuration's rules as kube-apiserver does, with its
// messages: config checks the configurations it loads with it, and webhook checks the
// rules a registration generates, so that the two can never disagree on what a rule may say.
//
//	rules.go  Rule, Operations, Scopes: one rule checked with the apiserver's messages
package rulecheck
