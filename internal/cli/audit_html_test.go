package cli

import (
	"bytes"
	"context"
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

// chromiumPath finds Debian's chromium, installing it as make test does (hack/ensure-tools.sh)
// when it is missing. A machine where it cannot be installed fails the test, saying why: make
// test installs what it needs, and a report no browser opened is not checked.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if path, err := exec.LookPath("chromium"); err == nil {
		return path
	}
	out, err := exec.Command("bash", "../../hack/ensure-tools.sh", "chromium").CombinedOutput()
	if err != nil {
		t.Fatalf("the HTML report is checked in a real browser, and chromium is not installed and cannot be (bash hack/ensure-tools.sh chromium: %v):\n%s", err, out)
	}
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("hack/ensure-tools.sh chromium ran, yet no chromium is on PATH: %v", err)
	}
	return path
}

// headless runs chromium headless on page with a profile of its own, and returns what it
// printed on standard output.
func headless(t *testing.T, chromium, page string, args ...string) []byte {
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

// The HTML report, opened in a real browser: the verdict, the totals, a chart per step and per
// namespace with a bar segment for each count, an entry per object; drawn in the effects'
// colours; nothing fetched from elsewhere.
func TestAuditHTMLInBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	f := newAuditFixture(t)
	page := filepath.Join(f.dir, "audit.html")
	if _, stderr, code := runAudit(t, context.Background(), "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "--html", page); code != ExitRejected {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	source, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range regexp.MustCompile(`(?:src|href)=|url\(|https?://[^"]*`).FindAllString(string(source), -1) {
		if link != "http://www.w3.org/2000/svg" {
			t.Errorf("the report refers to something outside itself: %s", link)
		}
	}

	dom := string(headless(t, chromium, page, "--dump-dom"))
	for _, want := range []string{
		`<div id="verdict" class="verdict fail">Not ready to roll out: 2 newly denied writes (more than 0); 1 write with newly failing calls (more than 0)</div>`,
		`<div class="n" id="total-denied">2</div>`,
		`<svg id="steps-chart"`, `<svg id="namespaces-chart"`,
		`<g class="bar" data-label="ValidatingAdmissionPolicy replica-cap" data-total="1">`,
		`<g class="bar" data-label="shop" data-total="4">`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	segments := regexp.MustCompile(`<rect class="segment (\w+)" data-count="(\d+)"`).FindAllStringSubmatch(dom, -1)
	var got []string
	for _, s := range segments {
		got = append(got, s[1]+"="+s[2])
	}
	// Steps: replica-cap, flaky, team-pods, ports, owner; namespaces: shop, ops.
	want := "denied=1 failing=1 denied=1 warned=1 mutated=1 denied=2 warned=1 mutated=1 failing=1"
	if strings.Join(got, " ") != want {
		t.Errorf("bar segments %q, want %q", strings.Join(got, " "), want)
	}
	if n := strings.Count(dom, `<details class="object"`); n != 5 {
		t.Errorf("%d objects listed, want 5", n)
	}

	shot := filepath.Join(f.dir, "audit.png")
	headless(t, chromium, page, "--window-size=1200,1600", "--hide-scrollbars", "--screenshot="+shot)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1600 {
		t.Errorf("screenshot of %v, want 1200x1600", b)
	}
	// Each effect's colour fills its bars: enough pixels of it that a bar, not a legend's swatch
	// alone, was drawn.
	for effect, c := range map[string]color.RGBA{"denied": {0xcf, 0x22, 0x2e, 0xff}, "failing": {0xbc, 0x4c, 0x00, 0xff}, "mutated": {0x09, 0x69, 0xda, 0xff}, "warned": {0xbf, 0x87, 0x00, 0xff}} {
		if n := countColour(img, c); n < 2000 {
			t.Errorf("%d pixels of %s's colour in the screenshot: its bars were not drawn", n, effect)
		}
	}
}

func countColour(img image.Image, want color.RGBA) int {
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
