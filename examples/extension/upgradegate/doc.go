// Package upgradegate is a small lifecycle-hook extension server, and the example of calling it
// with package extension. It serves one hook, BeforeClusterUpgrade, with two handlers:
//
//   - version-skew refuses (status Failure) upgrades that skip a minor version and downgrades;
//   - maintenance-window asks the caller to retry later (Success with RetryAfterSeconds) outside
//     a daily maintenance window. It is advertised with failurePolicy Ignore: when it is down,
//     upgrades are not held up.
//
// Callers find both through discovery (Caller.Discover) and invoke them together with
// extension.CallAll; example_test.go shows the whole round trip over TLS on loopback.
//
//	hooks.go   BeforeClusterUpgradeHook, its request and response
//	server.go  NewHandler, Options, MaintenanceWindow: discovery and the two handlers
package upgradegate
