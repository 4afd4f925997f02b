// Package testenv runs a real etcd and kube-apiserver on loopback for end-to-end tests.
//
// Start launches both processes on free 127.0.0.1 ports in a temporary directory, waits
// until the apiserver is ready and serves the admissionregistration API, and returns an Env
// with an admin client, a kubeconfig file and a kubectl runner. Startup takes seconds, so a
// test package shares one Env: call Main from TestMain.
//
// Binaries: kube-apiserver from $ADMIT_KUBE_APISERVER, else $ADMIT_CACHE_DIR/bin or the
// module's .cache/bin (where `make tools` builds it); etcd from $ADMIT_ETCD, else PATH;
// kubectl from $ADMIT_KUBECTL, else PATH.
//
// The child processes run in their own process group and, on Linux, are killed by the
// kernel if the test binary dies, so an aborted test run leaves no apiserver behind.
//
//	testenv.go      Options, Env, Start, Stop: etcd and kube-apiserver started on free ports and
//	                waited for; the admin client, kubeconfig and kubectl runner
//	main.go         Main: one Env for a test package's TestMain
//	binaries.go     where kube-apiserver, etcd and kubectl are found
//	credentials.go  the apiserver's CA, serving certificate, service account keys, admin token file
//	process.go      a child process with its output in a log file: started, stopped, its log's tail
//	proc_linux.go   each child in its own process group, killed if the test binary dies
//	proc_other.go   other systems: no process group; an aborted run may leave the processes running
package testenv
