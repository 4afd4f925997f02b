// Package loopback gives tests what a webhook server on 127.0.0.1 needs: a fresh CA and a
// serving certificate for the loopback address, written where webhook.ServerOptions reads them.
//
//	certs.go  Certs: a fresh CA and a 127.0.0.1 serving certificate in a test's temporary directory
package loopback
