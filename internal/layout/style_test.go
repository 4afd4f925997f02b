package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The most lines a file and a function may have before a reader loses the thread: past them, a
// file holds two jobs and a function two steps, and each wants its own.
const (
	maxFileLines     = 500
	maxFunctionLines = 80
)

// goFiles calls fn with every Go file of the repository that is not a test, generated or in
// testdata, with its path from the root; its three modules (admit, bench, contrib) alike.
func goFiles(t *testing.T, fn func(path string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".cache", ".git", "testdata", "vendor", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fn(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFileAndFunctionLength(t *testing.T) {
	goFiles(t, func(path string, fset *token.FileSet, f *ast.File) {
		if lines := fset.File(f.Pos()).LineCount(); lines > maxFileLines {
			t.Errorf("%s: %d lines, more than %d: split it by what its parts do", path, lines, maxFileLines)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.Body.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFunctionLines {
				t.Errorf("%s: func %s: %d lines, more than %d: give its steps functions of their own", path, fn.Name.Name, lines, maxFunctionLines)
			}
		}
	})
}
