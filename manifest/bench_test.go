package manifest

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// dumpList is a List of n ConfigMaps as kubectl get -A -o yaml prints it.
func dumpList(n int) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nitems:\n")
	for i := range n {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: settings-%d\n    namespace: team-%d\n    labels: {app: web, tier: backend}\n  data:\n    key: value-%d\n", i, i%50, i)
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return b.Bytes()
}

// BenchmarkReadDump reads a dump of 30,000 objects (about 5 MB, read an item at a time) and of
// 2,000 (read whole): objects per second, and what is allocated.
func BenchmarkReadDump(b *testing.B) {
	for _, n := range []int{2000, 30000} {
		data := dumpList(n)
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				r := NewReader("dump.yaml", bytes.NewReader(data))
				read := 0
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					read++
				}
				if read != n {
					b.Fatalf("read %d objects, want %d", read, n)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}
