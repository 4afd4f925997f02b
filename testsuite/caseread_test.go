package testsuite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// readOptions compare what openCases and Load read: not the file's bytes, which a caseFile does
// not keep, nor what only Update uses.
func readOptions() []cmp.Option {
	return []cmp.Option{
		cmp.AllowUnexported(Suite{}, Expect{}),
		cmpopts.IgnoreFields(Suite{}, "data"),
		cmpopts.IgnoreFields(Case{}, "node", "updated", "files"),
	}
}

// againstLoad opens a file with openCases and with Load and says how they differ, "" when they
// do not; lazy says openCases gave a caseFile. exactErrors compares the errors' text, not only
// whether there is one (Load's text may order a case's problems as a map iterates).
func againstLoad(path string, exactErrors bool) (lazy bool, diff string) {
	s, cf, err := openCases(path)
	want, wantErr := Load(path)
	if cf == nil {
		if (err == nil) != (wantErr == nil) || (exactErrors && err != nil && err.Error() != wantErr.Error()) {
			return false, fmt.Sprintf("openCases's error:\n%v\nLoad's:\n%v", err, wantErr)
		}
		return false, cmp.Diff(want, s, readOptions()...)
	}
	defer cf.Close()
	switch {
	case err != nil:
		return true, fmt.Sprintf("a caseFile and an error: %v", err)
	case wantErr != nil:
		return true, fmt.Sprintf("openCases reads the file lazily, Load fails: %v", wantErr)
	case s.Cases != nil:
		return true, "the lazy suite holds its cases"
	}
	header := *want
	header.Cases = nil
	if d := cmp.Diff(&header, s, readOptions()...); d != "" {
		return true, fmt.Sprintf("the suite (-Load +openCases):\n%s", d)
	}
	var names []string
	for _, c := range want.Cases {
		names = append(names, c.Name)
	}
	if d := cmp.Diff(names, cf.Names()); d != "" || cf.Len() != len(want.Cases) {
		return true, fmt.Sprintf("%d names (-Load +openCases):\n%s", cf.Len(), d)
	}
	for i, wc := range want.Cases {
		c, err := cf.Case(i)
		if err != nil {
			return true, fmt.Sprintf("case %d: %v", i, err)
		}
		if d := cmp.Diff(wc, c, readOptions()...); d != "" {
			return true, fmt.Sprintf("case %d (-Load +Case):\n%s", i, d)
		}
	}
	return true, ""
}

// testFile is a test file and the files next to it.
type testFile struct {
	name, file string
	files      map[string]string
}

// write writes the file as admit-test.yaml in a new directory, with its files, and returns its path.
func (tf testFile) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range tf.files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, name, content)
	}
	return writeFile(t, dir, "admit-test.yaml", tf.file)
}

const suiteStart = "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\n"

// generatedSuite is a file of n cases of the shape of the memory benchmark's.
func generatedSuite(n int) string {
	var b strings.Builder
	b.WriteString(suiteStart + "name: N ConfigMaps\nwebhooks: [policy.yaml]\ncases:\n")
	for i := range n {
		fmt.Fprintf(&b, `- name: configmap %d is admitted
  object:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: cm-%d, namespace: ns-%d, labels: {team: t%d}}
    data: {key: value-%d}
  expect:
    allowed: true
    outcomes: {team-label: allowed}
`, i, i, i, i, i)
	}
	return b.String()
}

// shapesFile has every plain shape a line scan must split as YAML does.
const shapesFile = `# a suite of every plain shape
` + suiteStart + `name: shapes
webhooks: [hooks.yaml, /abs/other.yaml]
cases:   # the cases

# before the first
- name: from a file
  object: objects/pod.yaml
  expect: {allowed: true}
# between cases, at column 0

- name: a missing file
  operation: UPDATE
  object: missing/pod.yaml
  old: two.yaml
  expect:
    allowed: false
# inside a case, at column 0
    message: |
      first line
      - not a case
      # not a comment
    warnings:
    - folded
- name: block scalars
  object:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: c}
    data:
      script: |
        - looks like a case
      folded: >
        a
        b
      kept: |+
        x

  expect:
    allowed: true
    fields:
      data.script: "- looks like a case\n"
-
  name: a dash alone
  object: {apiVersion: v1, kind: Pod}
  expect: {allowed: true}
- &local
  name: anchors of its own
  object: {apiVersion: v1, kind: Pod, metadata: &meta {name: p}}
  old: {apiVersion: v1, kind: Pod, metadata: *meta}
  expect:
    <<: &ok {allowed: true}
    called: []
namespace: after-the-list
resolve: ["a/b=127.0.0.1:$(PORT)"]
`

// indentedFile has its dashes at indentation 2, comments at every indentation between its
// cases, and keys after the list.
const indentedFile = suiteStart + `cases:
  - name: a
    object: {apiVersion: v1, kind: Pod}
    expect: {allowed: true}
# column 0
  # indent 2
 # indent 1

  - name: b
    object: pod.yaml
    expect:
      allowed: true
      wholeObject: pod.yaml
webhooksOnly: true
server:
  command: [x]
  ready: tcp://127.0.0.1:$(PORT)
`

// updateFile is TestUpdateRewritesOnlyExpectBlocks's file.
const updateFile = `# a suite
` + suiteStart + `cases:
  # first
  - name: rejected now
    object: {apiVersion: v1, kind: Pod, metadata: {name: 'p'}}
    expect:
      allowed: true   # was admitted
      # checked fields
      fields:
        spec.image: old
        spec.gone: 1
    # trailing comment of the case
  - name: untouched
    object: {apiVersion: v1, kind: Pod}
    expect: {allowed: true, called: [x]}
  - name: regexp kept
    object: {apiVersion: v1, kind: Pod}
    expect: {allowed: false, messageRegexp: "denied", outcomes: {w: denied, gone: error}, warnings: [old], reason: Forbidden}  # a denial
`

// parseFile is TestParse's file.
const parseFile = suiteStart + `webhooks: [hooks.yaml, /abs/other.yaml]
cluster: state/
resolve: ["ns/svc=127.0.0.1:$(PORT)"]
server:
  command: ["$(ADMIT)", serve]
  env: {A: b}
  ready: tcp://127.0.0.1:$(PORT)
  readyTimeout: 5s
cases:
- name: from a file
  object: pod.yaml
  user: alice
  groups: [dev]
  dryRun: true
  expect:
    allowed: false
    code: 403
    messageRegexp: "denied$"
    warnings: []
- name: inline update
  operation: update
  namespace: other
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {n: "1"}}
  old: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  expect:
    allowed: true
    called: [a, b]
    outcomes: {a: patched}
    fields:
      data.n: "1"
      metadata.labels["app.kubernetes.io/name"]: null
`

// caseErrorsFile is TestCaseFileErrorsAreTheCases's file: cases whose files do not read.
const caseErrorsFile = suiteStart + `cases:
- name: missing
  object: missing.yaml
  expect: {allowed: true}
- name: two
  object: two.yaml
  expect: {allowed: true}
- name: fine
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect: {allowed: true}
`

// TestOpenCasesReadsAsLoad opens the repository's test files, the testsuite tests' and files of
// every plain shape lazily, and reads from them what Load reads.
func TestOpenCasesReadsAsLoad(t *testing.T) {
	pod := map[string]string{"pod.yaml": podYAML}
	two := podYAML + "---\n" + podYAML
	tests := []testFile{
		{name: "shapes", file: shapesFile, files: map[string]string{"objects/pod.yaml": podYAML, "two.yaml": two}},
		{name: "indented", file: indentedFile, files: pod},
		{name: "indented, CRLF", file: strings.ReplaceAll(indentedFile, "\n", "\r\n"), files: pod},
		{name: "shapes, CRLF", file: strings.ReplaceAll(shapesFile, "\n", "\r\n"), files: map[string]string{"objects/pod.yaml": podYAML}},
		{name: "no line break at the end", file: strings.TrimSuffix(caseErrorsFile, "\n"), files: map[string]string{"two.yaml": two}},
		{name: "update's", file: updateFile},
		{name: "Parse's", file: parseFile, files: map[string]string{"pod.yaml": "# a comment\n" + podYAML}},
		{name: "the cases' file errors", file: caseErrorsFile, files: map[string]string{"two.yaml": two}},
		{name: "generated", file: generatedSuite(3)},
		{name: "check's", file: suiteStart + "cases:\n- name: c\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: false, code: 403}\n"},
		{name: "vacuous's", file: suiteStart + "webhooks: [policies.yaml]\ncases:\n- name: names a policy the file lacks\n  tests: [team-labels]\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: default}}\n  expect: {allowed: false}\n"},
		{name: "a list after the list", file: suiteStart + "cases:\n- name: a\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\nwebhooks:\n- hooks.yaml\n# last\n- /abs/other.yaml\n"},
		{name: "a comment after the key, and the last case", file: suiteStart + "cases: # x\n- name: a\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n# done\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lazy, diff := againstLoad(tt.write(t), true)
			if diff != "" {
				t.Error(diff)
			}
			if !lazy {
				t.Error("read by Load, not lazily")
			}
		})
	}
	files, err := Find(filepath.Join("..", "examples"), filepath.Join("..", "test"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			lazy, diff := againstLoad(path, true)
			if diff != "" {
				t.Error(diff)
			}
			if !lazy {
				t.Error("read by Load, not lazily")
			}
		})
	}
	if len(files) < 3 {
		t.Errorf("the repository's test files: %v", files)
	}
}

// TestOpenCasesFallsBackToLoad opens files that are not of the plain shape, or have a problem:
// Load reads them, and openCases gives what Load gives, error for error.
func TestOpenCasesFallsBackToLoad(t *testing.T) {
	const one = "- name: a\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n"
	tests := []testFile{
		{name: "anchors across cases", file: suiteStart + `cases:
- name: anchored
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect: &ok
    allowed: true
- name: aliased
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect: *ok
- name: merged
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect:
    <<: *ok
    wholeObject: want.yaml
`, files: map[string]string{"want.yaml": "apiVersion: v1\nkind: Pod\n"}},
		{name: "an alias of the header's anchor", file: suiteStart + "name: &n shared\ncases:\n- name: *n\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n"},
		{name: "the header's alias of an anchor a case redefines", file: suiteStart + "namespace: &ns first\ncases:\n- name: a\n  namespace: &ns second\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\nname: *ns\n"},
		{name: "a header's quoted scalar holding cases:", file: suiteStart + "name: \"two\ncases:\n" + one + "words\"\ncases:\n- name: b\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n"},
		{name: "flow cases", file: suiteStart + "cases: [{name: a, object: {apiVersion: v1, kind: Pod}, expect: {allowed: true}}]\n"},
		{name: "an anchor on cases", file: suiteStart + "cases: &c\n" + one},
		{name: "a tag on cases", file: suiteStart + "cases: !!seq\n" + one},
		{name: "a tag on its own line", file: suiteStart + "cases:\n  !!seq\n" + one},
		{name: "a quoted key", file: suiteStart + "\"cases\":\n" + one},
		{name: "an explicit key", file: suiteStart + "? cases\n:\n" + one},
		{name: "a tab before the comment", file: suiteStart + "cases:\t# x\n" + one},
		{name: "cases twice", file: suiteStart + "cases:\n" + one + "cases:\n" + one},
		{name: "a document start", file: "---\n" + suiteStart + "cases:\n" + one},
		{name: "a document end", file: suiteStart + "cases:\n" + one + "...\n"},
		{name: "a directive", file: "%YAML 1.1\n---\n" + suiteStart + "cases:\n" + one},
		{name: "a tab in indentation", file: suiteStart + "cases:\n- name: a\n\tobject: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n"},
		{name: "a tab before a comment", file: suiteStart + "cases:\n" + one + "\t# x\n" + strings.ReplaceAll(one, "a\n", "b\n")},
		{name: "a byte-order mark", file: "\ufeff" + suiteStart + "cases:\n" + one},
		{name: "a lone CR", file: suiteStart + "cases:\n" + strings.Replace(one, "\n", "\r", 1)},
		{name: "a NEL", file: suiteStart + "name: \"a\u0085b\"\ncases:\n" + one},
		{name: "a case with an unknown field", file: suiteStart + "cases:\n" + one + "- name: b\n  obejct: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n"},
		{name: "a problem of the header", file: suiteStart + "webhook: [x]\ncases:\n" + one},
		{name: "duplicate names", file: suiteStart + "cases:\n" + one + one},
		{name: "a case without a name", file: suiteStart + "cases:\n" + one + "- object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n"},
		{name: "a bad operation", file: suiteStart + "cases:\n- name: a\n  operation: PATCH\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n"},
		{name: "a YAML error in a case", file: suiteStart + "cases:\n" + one + "- name: b\n  object: {apiVersion: v1, kind: Pod\n  expect: {allowed: true}\n"},
		{name: "no cases", file: suiteStart + "name: x\n"},
		{name: "an empty list", file: suiteStart + "cases:\n# none\nnamespace: x\n"},
		{name: "an empty list at the end", file: suiteStart + "cases:\n"},
		{name: "not a list", file: suiteStart + "cases:\n  name: a\n"},
		{name: "a dash less indented", file: suiteStart + "cases:\n  " + strings.ReplaceAll(one, "\n  ", "\n    ") + " - name: b\n   object: {apiVersion: v1, kind: Pod}\n   expect: {allowed: true}\n"},
		{name: "a key as indented as the dashes", file: suiteStart + "cases:\n  " + strings.ReplaceAll(one, "\n  ", "\n    ") + "  name: b\n"},
		{name: "a dash that is not a case's", file: suiteStart + "cases:\n" + one + "-x: 1\n"},
		{name: "a list after the list", file: suiteStart + "cases:\n  " + strings.ReplaceAll(one, "\n  ", "\n    ") + "namespace: x\n" + one},
		{name: "a flow mapping", file: "{apiVersion: admit.dev/v1alpha1, kind: TestSuite,\ncases:\n" + one + "}\n"},
		{name: "not a mapping", file: "- a\n"},
		{name: "empty", file: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lazy, diff := againstLoad(tt.write(t), true)
			if diff != "" {
				t.Error(diff)
			}
			if lazy {
				t.Error("read lazily, not by Load")
			}
		})
	}
	t.Run("no file", func(t *testing.T) {
		lazy, diff := againstLoad(filepath.Join(t.TempDir(), "admit-test.yaml"), true)
		if diff != "" || lazy {
			t.Errorf("lazily: %v; %s", lazy, diff)
		}
	})
}

// FuzzOpenCases opens any file: openCases does not panic, and what it reads lazily Load reads
// alike, case for case (and Load reads it without an error); what it does not, Load reads.
func FuzzOpenCases(f *testing.F) {
	for _, seed := range []string{
		generatedSuite(2), shapesFile, indentedFile, strings.ReplaceAll(indentedFile, "\n", "\r\n"), updateFile, parseFile, caseErrorsFile,
		suiteStart + "namespace: &ns first\ncases:\n- name: a\n  namespace: &ns second\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\nname: *ns\n",
		"{apiVersion: admit.dev/v1alpha1, kind: TestSuite,\ncases:\n- name: a\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n}\n",
		suiteStart + "name: \"two\ncases:\n- name: a\n  object: pod.yaml\n  expect: {allowed: true}\nwords\"\ncases:\n- name: b\n  object: {apiVersion: v1, kind: Pod}\n  expect: {allowed: true}\n",
	} {
		f.Add(seed)
	}
	// One directory for every input: a fuzzing process runs them one at a time, and the fuzzer
	// tries more of them a second.
	dir := f.TempDir()
	for name, content := range map[string]string{"pod.yaml": podYAML, "two.yaml": podYAML + "---\n" + podYAML} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			f.Fatal(err)
		}
	}
	path := filepath.Join(dir, "admit-test.yaml")
	f.Fuzz(func(t *testing.T, file string) {
		if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, diff := againstLoad(path, false); diff != "" {
			t.Error(diff)
		}
	})
}

// TestCaseReadAgainFromAChangedFile reads cases of a file changed since it was opened: an error,
// never another case.
func TestCaseReadAgainFromAChangedFile(t *testing.T) {
	tests := []struct {
		name, file string
		i          int
		want       string
	}{
		{name: "no such case", file: generatedSuite(2), i: 2, want: "admit-test.yaml: no case 2: the file has 2"},
		{name: "another name", file: strings.Replace(generatedSuite(2), "configmap 1 is", "configmap 9 is", 1), i: 1,
			want: `admit-test.yaml:15: the case is now "configmap 9 is admitted", not "configmap 1 is admitted": the file changed since it was opened`},
		{name: "shorter", file: generatedSuite(1), i: 1, want: `admit-test.yaml: reading case "configmap 1 is admitted" again: EOF`},
		{name: "a problem", file: strings.Replace(generatedSuite(2), "allowed: true", "allowed: 1234", 2), i: 1,
			want: `case "configmap 1 is admitted" read again, the file changed since it was opened: ` +
				`admit-test.yaml:22: case "configmap 1 is admitted": expect: yaml: unmarshal errors:` + "\n  line 22: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := testFile{file: generatedSuite(2)}.write(t)
			_, cf, err := openCases(path)
			if err != nil || cf == nil {
				t.Fatalf("openCases: %v, a caseFile: %v", err, cf != nil)
			}
			defer cf.Close()
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := cf.Case(tt.i)
			if err == nil {
				t.Fatalf("case %q, no error", c.Name)
			}
			if got := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), ""); !strings.HasPrefix(got, tt.want) {
				t.Errorf("error\n%s\nwant\n%s...", got, tt.want)
			}
		})
	}
}
