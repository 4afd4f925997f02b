// Package servers starts the webhook servers the serving benchmark compares, each answering the
// same AdmissionReview with the same mutation (bench.Inject):
//
//   - Admit: admit's webhook.Server serving a webhook.Registry, the Pod defaulter written with
//     webhook.DefaultingHandler, with admission metrics on a Prometheus registry;
//   - Handwritten: what a careful engineer writes without a framework — net/http, encoding/json
//     into admissionv1.AdmissionReview and corev1.Pod, the mutation, and the JSON Patch from
//     wI2L/jsondiff between the object received and the mutated Pod serialised again;
//   - ControllerRuntime: controller-runtime's webhook server with admission.WithDefaulter, HTTP/2
//     turned off as kubebuilder's scaffold does;
//   - Floor: a bare net/http TLS server that reads the request and writes a precomputed answer —
//     what TLS, HTTP and the kernel cost with no admission work at all.
//
// All four listen on 127.0.0.1 with the same ECDSA P-256 certificate (WriteTLS) and offer
// HTTP/1.1 only, as kube-apiserver calls webhooks.
//
//	servers.go            Kind, Start, Running, WriteTLS, ClientTLS: servers started on loopback
//	admit.go              AdmitRegistry: admit's server, the defaulter and two validating webhooks
//	handwritten.go        HandwrittenHandler: the defaulter with net/http, encoding/json, jsondiff
//	controllerruntime.go  the defaulter on controller-runtime's webhook server
//	floor.go              FloorAnswer: the precomputed answer of the bare server
package servers
