package manifest

import (
	"errors"
	"fmt"
	"io"
)

// ReadFile reads every object of one file of the inputs. Every problem is reported; on error no
// object is returned. A file that looks like a template gets a last error saying to render it.
func (in *Inputs) ReadFile(f File) ([]Object, error) {
	rc, err := in.Open(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readAll(NewReader(f.Name, rc))
}

// Read reads every object of the inputs, in order. Every problem is reported — documents that
// do not read, inputs that hold no objects, the files of a kustomize base whose build changes
// them — and then no object is returned.
func (in *Inputs) Read() ([]Object, error) {
	var objects []Object
	var errs []error
	check := newKustomizeCheck(in.Options.Command)
	for _, input := range in.List {
		read := 0
		for _, f := range input.Files {
			found, err := in.ReadFile(f)
			if err != nil {
				errs = append(errs, err)
				read = -1
				continue
			}
			for _, o := range found {
				check.Add(o)
			}
			objects = append(objects, found...)
			if read >= 0 {
				read += len(found)
			}
		}
		if read == 0 {
			errs = append(errs, input.Empty(in.Options.StdinName))
		}
		check.Input(input)
	}
	if err := check.Err(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return objects, nil
}

// Each calls fn with every object of the inputs, in order, reading a batch of documents at a
// time: a dump of a whole cluster is never held at once. It stops at the first error, fn's or
// the inputs' (as Read's; the kustomize base's once every file is read).
func (in *Inputs) Each(fn func(Object) error) error {
	check := newKustomizeCheck(in.Options.Command)
	for _, input := range in.List {
		read := 0
		for _, f := range input.Files {
			n, err := in.eachOfFile(f, func(o Object) error {
				check.Add(o)
				return fn(o)
			})
			if err != nil {
				return err
			}
			read += n
		}
		if read == 0 {
			return input.Empty(in.Options.StdinName)
		}
		check.Input(input)
	}
	return check.Err()
}

// eachOfFile calls fn with each object of one file; n counts them.
func (in *Inputs) eachOfFile(f File, fn func(Object) error) (n int, err error) {
	rc, err := in.Open(f)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	r := NewReader(f.Name, rc)
	for {
		obj, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			if hint := r.TemplateHint(); hint != nil {
				err = fmt.Errorf("%w\n%w", err, hint)
			}
			return n, err
		}
		n++
		if err := fn(obj); err != nil {
			return n, err
		}
	}
}
