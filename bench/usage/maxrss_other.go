//go:build !darwin

package usage

// maxRSSBytes converts getrusage's ru_maxrss, which Linux and the BSDs report in kilobytes.
func maxRSSBytes(maxrss int64) int64 { return maxrss * 1024 }
