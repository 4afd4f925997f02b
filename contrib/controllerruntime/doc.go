// Package controllerruntime mounts an admit webhook.Registry on a controller-runtime manager's
// webhook server, for operators that already run a manager: the manager keeps serving TLS, its
// certificate watcher and its health checks; admit's Registry answers the admission (and CRD
// conversion) requests on the paths it registered.
//
// It is a module of its own, so that admit itself does not depend on controller-runtime.
//
//	mgr, _ := ctrl.NewManager(cfg, ctrl.Options{WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{Port: 9443})})
//	registry := webhook.NewRegistry(webhook.HTTPOptions{})
//	_ = registry.Register(webhook.Webhook{...})
//	_ = controllerruntime.Mount(mgr.GetWebhookServer(), registry)
//
// What changes compared with admit's own webhook.Server: the drain (controller-runtime's server
// shuts down without a readiness drop first) and readiness (its checker only dials the port),
// so prefer admit's Server when the process serves webhooks alone.
//
// example/labeller is a complete program; the e2e suite runs it behind a real kube-apiserver.
// For certificates without cert-manager, run admit's certs/rotator next to the manager with
// CertDir set to the webhook server's CertDir.
//
//	mount.go  Mount: the Registry's webhooks on a controller-runtime server, each on its path
package controllerruntime
