package usage

// maxRSSBytes converts getrusage's ru_maxrss, which macOS reports in bytes.
func maxRSSBytes(maxrss int64) int64 { return maxrss }
