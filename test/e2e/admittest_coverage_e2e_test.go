//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runAdmitTestCoverage runs the built admit binary's test command from the repository root and
// returns its exit code and standard output.
func runAdmitTestCoverage(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(admitBinary(t), append([]string{"test"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if exit != nil {
		return exit.ExitCode(), stdout.String() + stderr.String()
	}
	return 0, stdout.String()
}

// The coverage of examples/testing — admit serve's webhooks, started by the suite — in text,
// JSON and the HTML page, the page opened in headless chromium.
func TestAdmitTestCoverageOfExamplesTesting(t *testing.T) {
	code, out := runAdmitTestCoverage(t, "examples/testing", "--coverage")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"coverage: 4 of 10 units (40.0%)\n",
		"  deployments.apps.required-labels.admit.dev (admit)        ValidatingWebhook  1/1    \"a Deployment with its team label is admitted and its template mirrored\", \"a Deployment without a team label is refused\"\n",
		"  statefulsets.apps.image-mirrors.admit.dev (admit)         MutatingWebhook    0/1    -\n    not called\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q:\n%s", want, out)
		}
	}

	page := filepath.Join(t.TempDir(), "coverage.html")
	code, out = runAdmitTestCoverage(t, "examples/testing", "-o", "json", "--coverage-html", page, "--min-coverage", "50")
	if code != 1 || !strings.HasSuffix(out, "admit: coverage 40% is below --min-coverage 50%\n") {
		t.Fatalf("--min-coverage 50: exit %d, want 1 saying why\n%s", code, out)
	}
	var report struct {
		Passed   int
		Coverage struct {
			Units, Hit int
			Items      []struct {
				Kind, Name, File string
				Line             int
				Outcomes         map[string]int
			}
		}
	}
	if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "admit: ")]), &report); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	c := report.Coverage
	if report.Passed != 5 || c.Units != 10 || c.Hit != 4 || len(c.Items) != 10 {
		t.Fatalf("report: %d passed, coverage %+v", report.Passed, c)
	}
	protection := c.Items[9]
	if protection.Name != "namespace-protection.admit.dev" || protection.File != "examples/testing/webhooks.yaml" || protection.Line != 386 ||
		protection.Outcomes["denied"] != 1 {
		t.Errorf("the namespace protection webhook: %+v", protection)
	}
	checkExamplesCoveragePage(t, page)
}

// checkExamplesCoveragePage opens examples/testing's coverage page in headless chromium: each
// webhook's name line marked hit or not, its title naming the cases, in its colour.
func checkExamplesCoveragePage(t *testing.T, page string) {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("the coverage page is checked in a real browser, and chromium is not installed (hack/ensure-tools.sh chromium): %v", err)
	}
	dom := string(coverageHeadless(t, chromium, page, "--dump-dom"))
	marked := regexp.MustCompile(`<span class="line (\w+)" data-line="(\d+)"`).FindAllStringSubmatch(dom, -1)
	var got []string
	for _, m := range marked {
		got = append(got, m[2]+"="+m[1])
	}
	want := "22=hit 62=miss 101=hit 141=miss 181=miss 221=miss 261=miss 301=miss 347=hit 386=hit"
	if strings.Join(got, " ") != want {
		t.Errorf("marked lines %q, want %q", strings.Join(got, " "), want)
	}
	for _, want := range []string{
		`<p class="meta" id="total">4 of 10 units hit (40.0%)</p>`,
		`title="MutatingWebhook pods.image-mirrors.admit.dev: called: hit by &quot;a Pod's Docker Hub image is mirrored, the others are left alone&quot;"><span class="ln">22</span>  name: pods.image-mirrors.admit.dev</span>`,
		`title="MutatingWebhook jobs.batch.image-mirrors.admit.dev: called: not hit"><span class="ln">261</span>  name: jobs.batch.image-mirrors.admit.dev</span>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	shot := filepath.Join(t.TempDir(), "coverage.png")
	coverageHeadless(t, chromium, page, "--window-size=1200,1600", "--hide-scrollbars", "--screenshot="+shot)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for class, c := range map[string]color.RGBA{"hit": {0xb7, 0xf0, 0xb1, 0xff}, "miss": {0xf8, 0xb4, 0xb4, 0xff}} {
		if n := countPixels(img, c); n < 15000 {
			t.Errorf("%d pixels of %s's colour in the screenshot: its rows and lines were not drawn", n, class)
		}
	}
}

// coverageHeadless runs chromium headless on page with a profile of its own, and returns what
// it printed on standard output.
func coverageHeadless(t *testing.T, chromium, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, chromium, append(args, "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func countPixels(img image.Image, want color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B {
				n++
			}
		}
	}
	return n
}
