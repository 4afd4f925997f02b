// Package loopback gives tests what a webhook server on 127.0.0.1 needs: a fresh CA and a
// serving certificate for the loopback address, written where webhook.ServerOptions reads them.
package loopback
