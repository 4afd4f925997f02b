package cli

import (
	"io"

	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

// stdinName is how standard input is named in messages and output.
const stdinName = manifest.StdinName

// readObjects reads every object of the files, directories and stdin ("-") named by paths, in
// the order given, with package manifest (see its rules). Every problem is reported; then
// nothing is returned.
func readObjects(paths []string, recursive bool, stdin io.Reader) ([]review.Input, error) {
	in, err := manifest.Expand(paths, manifest.Options{Recursive: recursive, Stdin: stdin, Command: "admit review -f -"})
	if err != nil {
		return nil, err
	}
	objects, err := in.Read()
	if err != nil {
		return nil, err
	}
	return review.Inputs(objects), nil
}
