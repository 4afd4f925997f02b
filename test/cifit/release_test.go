//go:build !e2e

package cifit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeAdmit stands for admit in the releases these tests publish: it says its version and
// echoes what it is asked, with a fence in its output (which the summary's must outlast), or
// a Markdown table for -o markdown.
const fakeAdmit = `#!/bin/sh
if [ "$1" = version ]; then echo "admit v0.0.0-test go1.26.8 linux/amd64"; exit 0; fi
for a in "$@"; do
  if [ "$a" = markdown ]; then printf '| case | outcome |\n|---|---|\n| one | ok |\n'; exit 0; fi
done
echo "fake admit: $*"
printf '%s\n' '` + "```" + `yaml' 'kind: Fake' '` + "```" + `'
`

// release publishes fake admit releases, made with hack/release-archive.sh as make
// release-archives makes them, on a loopback server, and counts the requests it answers.
type release struct {
	dir      string
	server   *httptest.Server
	requests atomic.Int32
}

func newRelease(t *testing.T) *release {
	t.Helper()
	r := &release{dir: t.TempDir()}
	files := http.FileServer(http.Dir(r.dir))
	r.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		files.ServeHTTP(w, req)
	}))
	t.Cleanup(r.server.Close)
	return r
}

// publish packs the fake admit as version's archive for a platform ("linux/amd64"), in
// version's directory.
func (r *release) publish(t *testing.T, version, platform string) string {
	t.Helper()
	os_, arch, _ := strings.Cut(platform, "/")
	binary := filepath.Join(t.TempDir(), "admit")
	if err := os.WriteFile(binary, []byte(fakeAdmit), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.dir, version)
	cmd := exec.Command("bash", filepath.Join(repoRoot(t), "hack", "release-archive.sh"), binary, version, os_, arch, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/release-archive.sh: %v\n%s", err, out)
	}
	return dir
}

// goPlatform is a runner's platform as Go and the release's names spell it: "linux/amd64".
func goPlatform(job *Job) string {
	os_ := map[string]string{"Linux": "linux", "macOS": "darwin"}[job.OS]
	arch := map[string]string{"X64": "amd64", "ARM64": "arm64"}[job.Arch]
	return os_ + "/" + arch
}

func runAction(t *testing.T, job *Job, action *Action, with map[string]string) *Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := job.Run(ctx, action, with)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestActionInstallsARelease installs a release by its tag, as `version: v0.0.0-test` asks: its
// archive for the runner's platform downloaded, checked against the release's checksums and
// put on PATH, once per job. The summary is asked in text, whose fence must outlast the output's.
func TestActionInstallsARelease(t *testing.T) {
	root := repoRoot(t)
	action, err := LoadAction(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := range action.Runs.Steps {
		if action.Runs.Steps[i].ID == "run" {
			action.Runs.Steps[i].Env["ADMIT_SUMMARY_FORMAT"] = "text"
		}
	}
	job, err := NewJob(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rel := newRelease(t)
	rel.publish(t, "v0.0.0-test", "darwin/arm64") // another platform's archive beside it
	rel.publish(t, "v0.0.0-test", goPlatform(job))
	with := map[string]string{"command": "test", "args": "examples/policies", "version": "v0.0.0-test", "download-url": rel.server.URL + "/"}

	run := runAction(t, job, action, with)
	bin := filepath.Join(job.Temp, "admit-action", "v0.0.0-test", "admit")
	if run.Failed || run.Outputs["version"] != "v0.0.0-test" || run.Outputs["admit-path"] != bin || run.Outputs["exit-code"] != "0" {
		t.Fatalf("failed %v, outputs %v; want version v0.0.0-test at %s, exit code 0\n%s", run.Failed, run.Outputs, bin, run.Step("install").Output)
	}
	if got := rel.requests.Load(); got != 2 {
		t.Errorf("%d requests, want 2 (the checksums, the archive)", got)
	}
	if len(job.path) != 1 || job.path[0] != filepath.Dir(bin) {
		t.Errorf("PATH additions %q, want [%s]", job.path, filepath.Dir(bin))
	}
	// The JUnit report goes to a directory of its own in RUNNER_TEMP; the fake writes none.
	wantOutput := regexp.MustCompile(`(?m)^fake admit: test --junit ` + regexp.QuoteMeta(job.Temp) + `/admit-run\.[^/ ]+/admit-test\.xml -o text examples/policies$`)
	if report := run.Outputs["report"]; report != "" || !wantOutput.MatchString(run.Step("run").Output) {
		t.Errorf("report %q, output:\n%s\nwant one matching %s", report, run.Step("run").Output, wantOutput)
	}
	// The output holds a fence of three backticks: the summary's has four.
	if want := "\n````text\n$ admit test --junit "; !strings.Contains(run.Summary, want) || !strings.Contains(run.Summary, "\n```\n````\n") {
		t.Errorf("the summary's fence does not outlast the output's:\n%s", run.Summary)
	}

	again := runAction(t, job, action, with)
	if again.Failed || rel.requests.Load() != 2 || !strings.Contains(again.Step("install").Output, "installed by an earlier step of this job") {
		t.Errorf("a second use in the job downloaded again (%d requests in all):\n%s", rel.requests.Load(), again.Step("install").Output)
	}
}

// TestActionRefusesWhatItCannotInstall: a release that is not there, an archive whose checksum
// does not match or that its release does not list, a version that is no tag, a platform admit
// is not built for. The action fails at its install step, saying why, and installs nothing.
func TestActionRefusesWhatItCannotInstall(t *testing.T) {
	root := repoRoot(t)
	action, err := LoadAction(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, version, runnerOS, runnerArch string
		tamper                              func(t *testing.T, sums string)
		want                                string
	}{
		{name: "no such release", version: "v9.9.9", want: "cannot download http://127.0.0.1"},
		{name: "a checksum that does not match", version: "v0.0.1", want: "its SHA-256 is ",
			tamper: func(t *testing.T, sums string) {
				rewrite(t, sums, func(s string) string { return strings.Repeat("0", 64) + s[64:] })
			}},
		{name: "an archive the checksums do not list", version: "v0.0.2", want: "admit_v0.0.2_checksums.txt lists no admit_v0.0.2_",
			tamper: func(t *testing.T, sums string) { rewrite(t, sums, func(string) string { return "" }) }},
		{name: "not a release tag", version: "latest", want: `version "latest" is neither "source" nor a release tag`},
		{name: "a Windows runner", version: "v0.0.3", runnerOS: "Windows", want: "runs on Linux and macOS runners, not on Windows"},
		{name: "a 32-bit runner", version: "v0.0.3", runnerArch: "X86", want: "built for X64 and ARM64 runners, not for X86"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, err := NewJob(root, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			rel := newRelease(t)
			if tc.version != "v9.9.9" {
				dir := rel.publish(t, tc.version, goPlatform(job))
				if tc.tamper != nil {
					tc.tamper(t, filepath.Join(dir, "admit_"+tc.version+"_checksums.txt"))
				}
			}
			job.OS = cmpOr(tc.runnerOS, job.OS)
			job.Arch = cmpOr(tc.runnerArch, job.Arch)
			run := runAction(t, job, action, map[string]string{"command": "lint", "args": "examples", "version": tc.version, "download-url": rel.server.URL})
			install := run.Step("install")
			if !run.Failed || install.ExitCode == 0 || !strings.Contains(install.Output, "::error title=admit::") || !strings.Contains(install.Output, tc.want) {
				t.Errorf("failed %v, install exited %d, want it to fail saying %q:\n%s", run.Failed, install.ExitCode, tc.want, install.Output)
			}
			if !run.Step("run").Skipped || run.Outputs["exit-code"] != "" {
				t.Errorf("admit ran after a failed install: %v", run.Outputs)
			}
			if _, err := os.Stat(filepath.Join(job.Temp, "admit-action", tc.version, "admit")); err == nil {
				t.Error("admit was installed")
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func rewrite(t *testing.T, file string, line func(string) string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l = line(l); l != "" {
			out = append(out, l)
		}
	}
	if err := os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestActionSummaryInMarkdown runs the run step with its summary in Markdown, as action.yml sets
// it in one line: admit is asked for Markdown, which the summary holds as it is.
func TestActionSummaryInMarkdown(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "ADMIT_SUMMARY_FORMAT: markdown"); n != 1 {
		t.Fatalf("action.yml sets ADMIT_SUMMARY_FORMAT: markdown %d times, want once: the one line that says the summary's format", n)
	}
	action, err := LoadAction(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := range action.Runs.Steps {
		if action.Runs.Steps[i].ID == "run" {
			action.Runs.Steps[i].Env["ADMIT_SUMMARY_FORMAT"] = "markdown"
		}
	}
	job, err := NewJob(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rel := newRelease(t)
	rel.publish(t, "v0.0.0-test", goPlatform(job))
	run := runAction(t, job, action, map[string]string{"command": "test", "version": "v0.0.0-test", "download-url": rel.server.URL})
	want := "### admit test: passed (exit code 0)\n\n| case | outcome |\n|---|---|\n| one | ok |\n\n"
	if run.Summary != want {
		t.Errorf("summary:\n%s\nwant:\n%s", run.Summary, want)
	}
}
