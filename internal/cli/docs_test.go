package cli

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/admitkit/admit/resources"
)

// docExample is a console block of a document: a command, the output it prints, the exit code.
type docExample struct {
	line     int
	args     []string
	output   []string
	exitCode int
}

// docExamples reads the ```console blocks of a Markdown document: "$ admit ARGS..." first, then
// the output, "# exit code N" last when it is not 0.
func docExamples(t *testing.T, path string) []docExample {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var examples []docExample
	var current *docExample
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case current == nil && line == "```console":
			current = &docExample{line: i + 1}
		case current != nil && line == "```":
			examples = append(examples, *current)
			current = nil
		case current != nil && current.args == nil:
			command, ok := strings.CutPrefix(line, "$ admit ")
			if !ok {
				t.Fatalf("%s:%d: a console block starts with \"$ admit\", not %q", path, i+1, line)
			}
			current.args = strings.Fields(command)
		case current != nil && strings.HasPrefix(line, "# exit code "):
			current.exitCode, err = strconv.Atoi(strings.TrimPrefix(line, "# exit code "))
			if err != nil {
				t.Fatalf("%s:%d: %v", path, i+1, err)
			}
		case current != nil:
			current.output = append(current.output, line)
		}
	}
	if len(examples) == 0 {
		t.Fatalf("%s has no console examples", path)
	}
	return examples
}

// durations are the DURATION column's values, which change from run to run.
var durations = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|ms|s)\b`)

// normalizeDocLine makes a line of output comparable with the document's: durations replaced
// and runs of spaces (the table's alignment, which follows the durations' widths) collapsed.
func normalizeDocLine(line string) string {
	return strings.Join(strings.Fields(durations.ReplaceAllString(line, "D")), " ")
}

// matchDocOutput reports whether got matches want, whose "..." lines stand for any number of
// lines.
func matchDocOutput(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for skip := 0; skip <= len(got); skip++ {
			if matchDocOutput(want[1:], got[skip:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && normalizeDocLine(want[0]) == normalizeDocLine(got[0]) && matchDocOutput(want[1:], got[1:])
}

// TestDocs runs the commands of the pages whose examples are runnable, from the repository's
// root, and checks they print what the pages show.
func TestDocs(t *testing.T) {
	for _, page := range []string{"docs/policies.md", "docs/testing.md", "docs/audit.md"} {
		t.Run(page, func(t *testing.T) {
			examples := docExamples(t, "../../"+page)
			t.Chdir("../..")
			for _, ex := range examples {
				t.Run(strconv.Itoa(ex.line), func(t *testing.T) {
					var stdout, stderr bytes.Buffer
					code := Run(context.Background(), ex.args, Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
					if code != ex.exitCode {
						t.Errorf("%s:%d: exit code %d, the document says %d\nstderr: %s", page, ex.line, code, ex.exitCode, stderr.String())
					}
					got := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
					want := ex.output
					for len(want) > 0 && want[len(want)-1] == "" {
						want = want[:len(want)-1]
					}
					if !matchDocOutput(want, got) {
						t.Errorf("%s:%d: admit %s prints what the document does not show:\n%s", page, ex.line, strings.Join(ex.args, " "), stdout.String())
					}
				})
			}
		})
	}
}

// TestDeployingNamesEveryOverlay: docs/deploying.md counts and names the overlays deploy/ has.
func TestDeployingNamesEveryOverlay(t *testing.T) {
	entries, err := os.ReadDir("../../deploy/overlays")
	if err != nil {
		t.Fatal(err)
	}
	var overlays []string
	for _, e := range entries {
		if e.IsDir() {
			overlays = append(overlays, e.Name())
		}
	}
	data, err := os.ReadFile("../../docs/deploying.md")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Join(strings.Fields(string(data)), " ")
	numbers := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	if len(overlays) >= len(numbers) || !strings.Contains(page, "a kustomize base and "+numbers[len(overlays)]+" overlays") {
		t.Errorf("docs/deploying.md does not say there are %d overlays (%s)", len(overlays), strings.Join(overlays, ", "))
	}
	for _, o := range overlays {
		if !strings.Contains(page, "`"+o+"`") {
			t.Errorf("docs/deploying.md does not name the overlay %s", o)
		}
	}
}

// docs/audit.md's dump command captures every kind admission reads of a cluster: without them a
// write is refused under the baseline and the proposal alike.
func TestAuditDumpCommandCapturesTheState(t *testing.T) {
	data, err := os.ReadFile("../../docs/audit.md")
	if err != nil {
		t.Fatal(err)
	}
	command := regexp.MustCompile(`(?m)^kubectl get (\S+) -A -o yaml > dump\.yaml$`).FindSubmatch(data)
	if command == nil {
		t.Fatal("docs/audit.md has no `kubectl get ... -A -o yaml > dump.yaml` command")
	}
	got := strings.Split(string(command[1]), ",")
	for _, k := range append(resources.StateKinds(), resources.StateKind{Resource: "customresourcedefinitions"}) {
		if !slices.Contains(got, k.Resource) {
			t.Errorf("docs/audit.md's dump command lacks %s", k.Resource)
		}
	}
}
