package testsuite

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// heapGrowth is how much the heap grows, per case of n, by what open returns (kept alive).
func heapGrowth(t *testing.T, n int, open func() any) float64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := open()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// TestCaseFileHoldsSpansNotCases opens a file of 20,000 cases: the caseFile holds, per case,
// little more than its name, where Load (the control, on a tenth of the cases, to be quick)
// holds several times as much.
func TestCaseFileHoldsSpansNotCases(t *testing.T) {
	const n, controlN = 20000, 2000
	path := testFile{file: generatedSuite(n)}.write(t)
	lazy := heapGrowth(t, n, func() any {
		_, cf, err := openCases(path)
		if err != nil || cf == nil {
			t.Fatalf("openCases: %v, a caseFile: %v", err, cf != nil)
		}
		t.Cleanup(func() { _ = cf.Close() })
		return cf
	})
	names := 0
	for i := range n {
		names += len(fmt.Sprintf("configmap %d is admitted", i))
	}
	beyondNames := lazy - float64(names)/n
	control := testFile{file: generatedSuite(controlN)}.write(t)
	load := heapGrowth(t, controlN, func() any {
		s, err := Load(control)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
	t.Logf("per case: openCases %.0f bytes (%.0f beyond the name's), Load %.0f", lazy, beyondNames, load)
	if beyondNames > 100 {
		t.Errorf("the caseFile holds %.0f bytes per case beyond its name, more than 100", beyondNames)
	}
	if load < 5*lazy {
		t.Errorf("Load holds %.0f bytes per case, openCases %.0f: the control does not show the difference", load, lazy)
	}
}

// BenchmarkCaseRead reads cases again from a file of the memory benchmark's shape: the cost of
// each case's second reading in a lazy run.
func BenchmarkCaseRead(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "admit-test.yaml")
	if err := os.WriteFile(path, []byte(generatedSuite(1000)), 0o600); err != nil {
		b.Fatal(err)
	}
	_, cf, err := openCases(path)
	if err != nil || cf == nil {
		b.Fatalf("openCases: %v, a caseFile: %v", err, cf != nil)
	}
	defer cf.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := cf.Case(i % cf.Len()); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
