package upgradegate

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/extension"
)

func TestCheckVersionSkew(t *testing.T) {
	success := extension.CommonResponse{Status: extension.StatusSuccess}
	tests := []struct {
		from, to string
		want     extension.CommonResponse
	}{
		{"v1.35.2", "v1.35.3", success},
		{"v1.35.2", "v1.36.0", success},
		{"1.35", "1.36", success},
		{"v1.35.2", "v1.35.2", success},
		{"v1.34.0", "v1.36.0", refuse("cluster c: upgrades may not skip a minor version (v1.34.0 to v1.36.0)")},
		{"v1.36.0", "v2.0.0", refuse("cluster c: upgrades may not skip a minor version (v1.36.0 to v2.0.0)")},
		{"v1.36.1", "v1.36.0", refuse("cluster c: downgrades are not supported (v1.36.1 to v1.36.0)")},
		{"latest", "v1.36.0", refuse(`fromVersion "latest": could not parse "latest" as version`)},
		{"v1.36.0", "", refuse(`toVersion "": could not parse "" as version`)},
	}
	for _, tt := range tests {
		t.Run(tt.from+"->"+tt.to, func(t *testing.T) {
			got := checkVersionSkew(BeforeClusterUpgradeRequest{Cluster: "c", FromVersion: tt.from, ToVersion: tt.to})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckWindow(t *testing.T) {
	at := func(hour, minute int) time.Time { return time.Date(2026, 3, 1, hour, minute, 0, 0, time.UTC) }
	overnight := MaintenanceWindow{Start: 22 * time.Hour, Duration: 4 * time.Hour} // 22:00-02:00
	morning := MaintenanceWindow{Start: 2 * time.Hour, Duration: 4 * time.Hour}    // 02:00-06:00
	tests := []struct {
		name   string
		window MaintenanceWindow
		now    time.Time
		want   extension.CommonResponse
	}{
		{"inside", morning, at(3, 0), extension.CommonResponse{Status: extension.StatusSuccess}},
		{"at the start", morning, at(2, 0), extension.CommonResponse{Status: extension.StatusSuccess}},
		{"at the end", morning, at(6, 0), extension.CommonResponse{Status: extension.StatusSuccess,
			Message: "outside the maintenance window, which opens in 20h0m0s", RetryAfterSeconds: 72000}},
		{"before, same day", morning, at(1, 30), extension.CommonResponse{Status: extension.StatusSuccess,
			Message: "outside the maintenance window, which opens in 30m0s", RetryAfterSeconds: 1800}},
		{"overnight, after midnight", overnight, at(1, 0), extension.CommonResponse{Status: extension.StatusSuccess}},
		{"overnight, before midnight", overnight, at(23, 0), extension.CommonResponse{Status: extension.StatusSuccess}},
		{"overnight, afternoon", overnight, at(15, 0), extension.CommonResponse{Status: extension.StatusSuccess,
			Message: "outside the maintenance window, which opens in 7h0m0s", RetryAfterSeconds: 25200}},
		{"other time zone", morning, time.Date(2026, 3, 1, 4, 0, 0, 0, time.FixedZone("UTC+2", 2*3600)), extension.CommonResponse{Status: extension.StatusSuccess}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, checkWindow(tt.window, tt.now)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
