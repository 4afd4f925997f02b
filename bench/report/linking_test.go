package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDumpdep(t *testing.T) {
	dump := `# example.com/cmd
_ -> _rt0_amd64_linux
_ -> main.main
main.main -> example.com/app/cli.Run
example.com/app/cli.Run -> example.com/app/cli.render
example.com/app/cli.render -> fmt.Sprintf
example.com/app/cli.render -> text/template.(*Template).Execute
text/template.(*Template).Execute -> text/template.(*state).walk
text/template.(*state).walk -> text/template.(*state).evalField <ReflectMethod>
text/template.(*state).evalField <ReflectMethod> -> reflect.Value.MethodByName
type:reflect.Value <UsedInIface> -> reflect.(*Value).Method <ReflectMethod>
`
	keeps, cause, err := ParseDumpdep(strings.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"text/template.(*state).evalField", "example.com/app/cli.render", "example.com/app/cli.Run"}
	if diff := cmp.Diff(want, cause); !keeps || diff != "" {
		t.Errorf("keeps %v, cause (-want +got):\n%s", keeps, diff)
	}
	keeps, cause, err = ParseDumpdep(strings.NewReader("_ -> main.main\nmain.main -> fmt.Println\n"))
	if err != nil || keeps || cause != nil {
		t.Errorf("without a reflective call: %v %v %v", keeps, cause, err)
	}
	if _, _, err := ParseDumpdep(strings.NewReader("# nothing\n")); err == nil {
		t.Error("an empty dump was accepted")
	}
}

func TestPackageAndModule(t *testing.T) {
	modules := []string{"k8s.io/api", "github.com/admitkit/admit", "github.com/admitkit/admit/bench"}
	for symbol, want := range map[string]string{
		"k8s.io/api/core/v1.(*PodSpec).Unmarshal":                          "k8s.io/api",
		"github.com/admitkit/admit/patch.(*Typed).Lossless":                "github.com/admitkit/admit",
		"github.com/admitkit/admit/bench/report.ParseDumpdep":              "github.com/admitkit/admit/bench",
		"k8s.io/client-go/gentype.FakeClient[*k8s.io/api/core/v1.Pod].Get": "Go",
		"runtime.mallocgc": "Go",
		"type:*github.com/admitkit/admit/webhook.Request":                            "Go",
		"github.com/admitkit/admit/webhook.DefaultingHandler[go.shape.*uint8].func1": "github.com/admitkit/admit",
	} {
		if got := moduleOf(packageOf(symbol), modules); got != want {
			t.Errorf("%s: module %q, want %q", symbol, got, want)
		}
	}
	top := TopModules(map[string]int64{"a": 5, "b": 3, "c": 2, "d": 1}, 2)
	if diff := cmp.Diff([]ModuleBytes{{"a", 5}, {"b", 3}, {"2 other modules", 3}}, top); diff != "" {
		t.Errorf("TopModules (-want +got):\n%s", diff)
	}
}

// An unstripped Go binary has its symbols counted by module. go test links its binaries
// without their symbol table, so the test links a small program of this module (testdata/
// symbols) with the symbols kept. It skips only where Go binaries are not ELF (macOS, Windows).
func TestReadSymbols(t *testing.T) {
	switch runtime.GOOS {
	case "darwin", "ios", "windows", "plan9":
		t.Skipf("Go binaries on %s are not ELF", runtime.GOOS)
	}
	exe := filepath.Join(t.TempDir(), "symbols")
	// -ldflags= overrides any -s in GOFLAGS: the symbol table is what is read.
	build := exec.Command("go", "build", "-ldflags=", "-o", exe, "./testdata/symbols")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/symbols: %v\n%s", err, out)
	}
	byModule, total, err := ReadSymbols(exe, []string{"github.com/admitkit/admit/bench"})
	if err != nil {
		t.Fatal(err)
	}
	if byModule["github.com/admitkit/admit/bench"] <= 0 || byModule["Go"] <= 0 || total != byModule["Go"]+byModule["github.com/admitkit/admit/bench"] {
		t.Errorf("symbols by module: %v of %d", byModule, total)
	}
}

// A file that is not ELF, or a binary without symbols, is an error, not an empty count.
func TestReadSymbolsErrors(t *testing.T) {
	notELF := filepath.Join(t.TempDir(), "text")
	if err := os.WriteFile(notELF, []byte("not a binary\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{notELF, filepath.Join(t.TempDir(), "missing")} {
		if byModule, total, err := ReadSymbols(path, nil); err == nil {
			t.Errorf("ReadSymbols(%s) = %v, %d, no error", path, byModule, total)
		}
	}
}
