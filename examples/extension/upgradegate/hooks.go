package upgradegate

import "github.com/admitkit/admit/extension"

// BeforeClusterUpgradeHook is called before a cluster's control plane is upgraded.
func BeforeClusterUpgradeHook() extension.Hook {
	return extension.Hook{Group: "hooks.upgradegate.example", Version: "v1alpha1", Name: "BeforeClusterUpgrade"}
}

// BeforeClusterUpgradeRequest describes the upgrade about to happen.
type BeforeClusterUpgradeRequest struct {
	Cluster     string `json:"cluster"`
	FromVersion string `json:"fromVersion"`
	ToVersion   string `json:"toVersion"`
}

// BeforeClusterUpgradeResponse answers it: Success to proceed, Success with RetryAfterSeconds to
// wait, Failure to refuse.
type BeforeClusterUpgradeResponse struct {
	extension.CommonResponse
}
