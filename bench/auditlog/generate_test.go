package auditlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// event is what the tests read of a generated event.
type event struct {
	Kind, APIVersion, Level, Stage, Verb, RequestURI string
	User                                             struct{ Username string }
	ObjectRef                                        struct{ Resource, Namespace, Name, APIGroup, APIVersion, Subresource string }
	ResponseStatus                                   struct{ Code int }
	RequestObject, ResponseObject                    json.RawMessage
}

func generated(t *testing.T, cfg Config) ([]byte, Stats) {
	t.Helper()
	var buf bytes.Buffer
	stats, err := Generate(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), stats
}

// Every line is an audit.k8s.io/v1 Event at stage ResponseComplete, the writes those the config
// asks for, the reads about twice as many, each level where the package says, and the stats what
// the log holds.
func TestGenerateWritesAuditEvents(t *testing.T) {
	log, stats := generated(t, Config{Writes: 15000})
	var writes, reads, lines, rr int
	verbs := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		if ev.Kind != "Event" || ev.APIVersion != "audit.k8s.io/v1" || ev.Stage != "ResponseComplete" || ev.ObjectRef.Resource == "" || ev.User.Username == "" || ev.ResponseStatus.Code == 0 {
			t.Fatalf("line %d is not a whole event at ResponseComplete: %s", lines, sc.Text())
		}
		key := ev.Verb + " " + ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			key += "/" + ev.ObjectRef.Subresource
		}
		verbs[key]++
		switch ev.Verb {
		case "get", "list", "watch":
			reads++
			if ev.Level != "Metadata" || ev.RequestObject != nil || ev.ResponseObject != nil {
				t.Errorf("line %d: a read at %s level, with objects", lines, ev.Level)
			}
			continue
		}
		writes++
		if ev.Level == "RequestResponse" {
			rr++
		}
		if ev.RequestObject == nil {
			t.Errorf("line %d: a write without its request's object", lines)
		}
		podWrite := ev.ObjectRef.Resource == "pods" && ev.ObjectRef.Subresource == "" && ev.Verb != "patch"
		if podWrite != (ev.Level == "RequestResponse") && ev.ObjectRef.Resource != "namespaces" {
			t.Errorf("line %d: %s at %s level", lines, key, ev.Level)
		}
		if ev.Verb == "create" && ev.ObjectRef.Name == "" {
			// A Pod created with a generated name: its name is its response's.
			var obj struct {
				Metadata struct{ Name, GenerateName string }
			}
			if err := json.Unmarshal(ev.ResponseObject, &obj); err != nil || obj.Metadata.Name == "" || !strings.HasPrefix(obj.Metadata.Name, obj.Metadata.GenerateName) {
				t.Errorf("line %d: a create without a name, whose response does not name it: %v", lines, err)
			}
		}
	}
	if want := (Stats{Writes: 15000, Reads: reads, Lines: lines, Bytes: int64(len(log)), Objects: stats.Objects, RequestResponse: rr, Namespaces: 20, Apps: 1000}); stats != want || writes != 15000 {
		t.Errorf("stats %+v, the log holds %+v (%d writes)", stats, want, writes)
	}
	if perWrite := float64(reads) / float64(writes); perWrite < 1.9 || perWrite > 2.1 {
		t.Errorf("%.2f reads a write, want about 2", perWrite)
	}
	for _, want := range []string{"create pods", "delete pods", "create pods/binding", "patch pods/status", "patch pods", "update deployments/status", "patch deployments",
		"update configmaps", "patch configmaps", "patch services", "update services", "get configmaps", "list pods", "watch deployments"} {
		if verbs[want] == 0 {
			t.Errorf("no %s in the log (%v)", want, verbs)
		}
	}
	if perLine := len(log) / lines; perLine < 1000 || perLine > 4000 {
		t.Errorf("%d bytes a line, want a real log's KB or two", perLine)
	}
}

// A log is a function of its config, a shorter log the start of a longer one, and the cluster
// written to the same whatever the length.
func TestGenerateIsDeterministic(t *testing.T) {
	short, shortStats := generated(t, Config{Writes: 12000})
	again, _ := generated(t, Config{Writes: 12000})
	long, longStats := generated(t, Config{Writes: 30000})
	if !bytes.Equal(short, again) {
		t.Error("two logs of one config differ")
	}
	if !bytes.HasPrefix(long, short) {
		t.Error("the shorter log is not the start of the longer")
	}
	if shortStats.Objects != longStats.Objects || longStats.Objects < 6000 {
		t.Errorf("the cluster has %d objects after 12,000 writes and %d after 30,000: want the same, its whole size", shortStats.Objects, longStats.Objects)
	}
	other, _ := generated(t, Config{Writes: 12000, Seed: 2})
	if bytes.Equal(short, other) {
		t.Error("another seed gives the same log")
	}
}

func TestGenerateRefusesEmptyShapes(t *testing.T) {
	for _, cfg := range []Config{{}, {Writes: 10, ReadsPerWrite: -1}, {Writes: -5}} {
		if _, err := Generate(&bytes.Buffer{}, cfg); err == nil || !strings.Contains(err.Error(), "every count must be positive") {
			t.Errorf("Generate(%+v) = %v, want an error", cfg, err)
		}
	}
}
