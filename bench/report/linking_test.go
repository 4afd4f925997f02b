package report

import (
	"os"
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

// An unstripped Go binary, this test's own, has its symbols counted by module.
func TestReadSymbols(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	byModule, total, err := ReadSymbols(exe, []string{"github.com/admitkit/admit/bench"})
	if err != nil {
		t.Skipf("no ELF symbols here: %v", err)
	}
	if byModule["github.com/admitkit/admit/bench"] <= 0 || byModule["Go"] <= 0 || total < byModule["Go"] {
		t.Errorf("symbols by module: %v of %d", byModule, total)
	}
}
