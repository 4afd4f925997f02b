// Command reflective executes a template, whose field lookups call methods through reflection by
// name: the linker then keeps every exported method, and binsize's explanation says so.
package main

import (
	"os"
	"text/template"
)

func main() {
	template.Must(template.New("t").Parse("{{.Name}}\n")).Execute(os.Stdout, struct{ Name string }{"x"})
}
