package upgradegate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/admitkit/admit/extension"
)

const (
	// VersionSkewHandler and MaintenanceWindowHandler are the handler names the server
	// advertises; the caller registers them as "<handler>.<server name>".
	VersionSkewHandler       = "version-skew"
	MaintenanceWindowHandler = "maintenance-window"
)

// MaintenanceWindow is a daily window, in UTC, during which upgrades may start.
type MaintenanceWindow struct {
	Start    time.Duration // after midnight UTC, e.g. 2*time.Hour
	Duration time.Duration
}

// opensIn returns 0 when now is inside the window, else how long until it opens.
func (w MaintenanceWindow) opensIn(now time.Time) time.Duration {
	now = now.UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	// Today's window, or yesterday's if it runs past midnight.
	for _, start := range []time.Time{midnight.Add(w.Start - 24*time.Hour), midnight.Add(w.Start)} {
		if !now.Before(start) && now.Before(start.Add(w.Duration)) {
			return 0
		}
	}
	next := midnight.Add(w.Start)
	if !next.After(now) {
		next = next.Add(24 * time.Hour)
	}
	return next.Sub(now)
}

// Options configure the server.
type Options struct {
	Window MaintenanceWindow
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
}

// NewHandler returns the extension server: discovery and both handlers, at the paths package
// extension expects relative to the server's base URL.
func NewHandler(opts Options) http.Handler {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	hook := BeforeClusterUpgradeHook()
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+extension.DiscoveryPath(), func(w http.ResponseWriter, r *http.Request) {
		ignore := extension.FailurePolicyIgnore
		windowTimeout := int32(5)
		reference := extension.HookReference{APIVersion: hook.APIVersion(), Hook: hook.Name}
		writeJSON(w, extension.DiscoveryResponse{
			CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess},
			Handlers: []extension.DiscoveredHandler{
				{Name: VersionSkewHandler, RequestHook: reference},
				{Name: MaintenanceWindowHandler, RequestHook: reference, TimeoutSeconds: &windowTimeout, FailurePolicy: &ignore},
			},
		})
	})
	mux.HandleFunc("POST "+extension.HandlerPath(hook, VersionSkewHandler), handle(checkVersionSkew))
	mux.HandleFunc("POST "+extension.HandlerPath(hook, MaintenanceWindowHandler), handle(func(BeforeClusterUpgradeRequest) extension.CommonResponse {
		return checkWindow(opts.Window, now())
	}))
	return mux
}

// handle decodes the request and answers with decide's verdict. A request that does not decode
// gets a 400: the caller sees a calling error, which is the truth — it sent something wrong.
func handle(decide func(BeforeClusterUpgradeRequest) extension.CommonResponse) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req BeforeClusterUpgradeRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, fmt.Sprintf("decoding BeforeClusterUpgrade request: %v", err), http.StatusBadRequest)
			return
		}
		writeJSON(w, BeforeClusterUpgradeResponse{CommonResponse: decide(req)})
	}
}

// checkVersionSkew allows patch upgrades and single-minor upgrades only.
func checkVersionSkew(req BeforeClusterUpgradeRequest) extension.CommonResponse {
	from, err := version.ParseGeneric(req.FromVersion)
	if err != nil {
		return refuse("fromVersion %q: %v", req.FromVersion, err)
	}
	to, err := version.ParseGeneric(req.ToVersion)
	if err != nil {
		return refuse("toVersion %q: %v", req.ToVersion, err)
	}
	switch {
	case to.LessThan(from):
		return refuse("cluster %s: downgrades are not supported (%s to %s)", req.Cluster, req.FromVersion, req.ToVersion)
	case to.Major() != from.Major() || to.Minor() > from.Minor()+1:
		return refuse("cluster %s: upgrades may not skip a minor version (%s to %s)", req.Cluster, req.FromVersion, req.ToVersion)
	}
	return extension.CommonResponse{Status: extension.StatusSuccess}
}

// checkWindow blocks (Success with RetryAfterSeconds) until the window opens.
func checkWindow(window MaintenanceWindow, now time.Time) extension.CommonResponse {
	wait := window.opensIn(now)
	if wait == 0 {
		return extension.CommonResponse{Status: extension.StatusSuccess}
	}
	return extension.CommonResponse{
		Status:            extension.StatusSuccess,
		Message:           fmt.Sprintf("outside the maintenance window, which opens in %s", wait.Round(time.Minute)),
		RetryAfterSeconds: int32((wait + time.Second - 1) / time.Second),
	}
}

func refuse(format string, args ...any) extension.CommonResponse {
	return extension.CommonResponse{Status: extension.StatusFailure, Message: fmt.Sprintf(format, args...)}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
