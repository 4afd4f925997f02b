package audit

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// timedEvent is a write's event logged at minute m.
func timedEvent(m int) string {
	return fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"delete","requestURI":"/api/v1/namespaces/a/configmaps/c%d","user":{"username":"u"},"objectRef":{"resource":"configmaps","namespace":"a","name":"c%d","apiVersion":"v1"},"stageTimestamp":"2026-11-20T10:%02d:00.000000Z"}`+"\n", m, m, m)
}

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A directory's files are read the oldest first by their events' times, whatever their names
// say (kube-apiserver's own rotation names files by time, logrotate by number), gzipped or not.
func TestLogFilesInTimeOrder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"audit.log":                            timedEvent(50) + timedEvent(51),
		"audit-2026-11-20T10-30-00.000.log.gz": gzipped(t, timedEvent(30)+timedEvent(31)),
		"audit-2026-11-20T10-10-00.000.log":    timedEvent(10),
		"empty.log":                            "",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err := (&Log{Path: dir}).lines(func(l *logLine) error {
		h, err := l.head()
		if err != nil {
			return err
		}
		got = append(got, fmt.Sprintf("%d %s:%d %s", l.position, filepath.Base(l.file), l.line, h.ObjectRef.Name))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0 audit-2026-11-20T10-10-00.000.log:1 c10", "1 audit-2026-11-20T10-30-00.000.log.gz:1 c30", "2 audit-2026-11-20T10-30-00.000.log.gz:2 c31",
		"3 audit.log:1 c50", "4 audit.log:2 c51"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// A log that cannot be read whole is an error naming the file and the line: a gzipped file cut
// off, a line that is not an event.
func TestLogFilesCutOff(t *testing.T) {
	dir := t.TempDir()
	whole := gzipped(t, strings.Repeat(timedEvent(1), 200))
	cut := filepath.Join(dir, "audit.log.1.gz")
	if err := os.WriteFile(cut, []byte(whole[:len(whole)/2]), 0o600); err != nil {
		t.Fatal(err)
	}
	err := (&Log{Path: cut}).lines(func(*logLine) error { return nil })
	if err == nil || !strings.Contains(err.Error(), cut+":") || !strings.Contains(err.Error(), "unexpected EOF (a rotated file cut off?)") {
		t.Errorf("a cut-off gzip file: %v", err)
	}
	bad := filepath.Join(dir, "notes.log")
	if err := os.WriteFile(bad, []byte(timedEvent(1)+"{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = (&Log{Path: bad}).lines(func(l *logLine) error { _, err := l.head(); return err })
	if err == nil || !strings.Contains(err.Error(), bad+":2: not an audit event") {
		t.Errorf("a line that is not an event: %v", err)
	}
}

// An event longer than the reader's buffer (a large object) is read whole.
func TestLogLongLine(t *testing.T) {
	big := strings.Replace(timedEvent(1), `"level":"Metadata"`, `"level":"Request","requestObject":{"data":{"blob":"`+strings.Repeat("x", 3<<20)+`"}}`, 1)
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(timedEvent(0)+big+timedEvent(2)), 0o600); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	err := (&Log{Path: path}).lines(func(l *logLine) error {
		ev, err := l.event()
		if err != nil {
			return err
		}
		sizes = append(sizes, len(ev.RequestObject))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 3 || sizes[1] < 3<<20 {
		t.Errorf("the events' request objects: %v bytes, want the second's whole", sizes)
	}
}

// The scan of an event's head reads what encoding/json reads of a valid line, whenever it takes
// the line at all.
func FuzzEventHead(f *testing.F) {
	f.Add([]byte(timedEvent(1)))
	f.Add([]byte(`{"stage":"ResponseComplete","verb":"create","objectRef":{"resource":"pods","namespace":"a"},"responseObject":{"kind":"Pod","metadata":{"name":"p-1"}}}`))
	f.Add([]byte(`{"stage":"ResponseComplete","verb":"create","objectRef":null,"stage":"RequestReceived","responseObject":null}`))
	f.Add([]byte(`{"st\u0061ge":"x","verb":"update"}`))
	f.Add([]byte(` {"verb" : "patch" , "stage":"Resp\"onse", "objectRef": {"name":"a\nb"}} `))
	f.Fuzz(func(t *testing.T, data []byte) {
		var scanned eventHead
		if !scanHead(data, &scanned) || !json.Valid(data) {
			return
		}
		var decoded eventHead
		if err := json.Unmarshal(data, &decoded); err != nil {
			// encoding/json refuses what its types do not take (a number for the verb): the
			// scan must have refused it too.
			t.Fatalf("the scan took %q, encoding/json did not: %v", data, err)
		}
		if diff := cmp.Diff(decoded, scanned, cmp.AllowUnexported(eventHead{}), cmp.Comparer(func(a, b rawAlias) bool { return bytes.Equal(a, b) })); diff != "" {
			t.Errorf("the head of %q (-encoding/json +scan):\n%s", data, diff)
		}
	})
}

// The scan of a created object's kind and name reads what encoding/json reads, whenever it
// takes the object at all.
func FuzzKindAndName(f *testing.F) {
	f.Add([]byte(`{"kind":"Pod","metadata":{"name":"p-1","namespace":"a"}}`))
	f.Add([]byte(`{"metadata":null,"kind":"Status"}`))
	f.Add([]byte(`{"metadata":{"NAME":"x"},"kind":"Pod"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		kind, name, ok := scanKindAndName(data)
		if !ok || !json.Valid(data) {
			return
		}
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("the scan took %q, encoding/json did not: %v", data, err)
		}
		if kind != obj.Kind || name != obj.Metadata.Name {
			t.Errorf("%q: the scan read kind %q and name %q, encoding/json %q and %q", data, kind, name, obj.Kind, obj.Metadata.Name)
		}
	})
}
