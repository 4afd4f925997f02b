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
	if err := in.Scan(func(o Object) { objects = append(objects, o) }); err != nil {
		return nil, err
	}
	return objects, nil
}

// Scan calls fn with every object of the inputs, in order, reading a batch of documents at a
// time as Each does, and goes on past problems to report every one as Read does: a first pass
// over an input too large to hold, which finds every problem before anything is printed. On
// error, fn has seen the objects that read, and what it made of them is to be dropped.
func (in *Inputs) Scan(fn func(Object)) error {
	var errs []error
	check := newKustomizeCheck(in.Options.Command)
	for _, input := range in.List {
		read := 0
		for _, f := range input.Files {
			n, err := in.scanFile(f, func(o Object) {
				check.Add(o)
				fn(o)
			})
			if err != nil {
				errs = append(errs, err)
				read = -1
				continue
			}
			if read >= 0 {
				read += n
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
	return errors.Join(errs...)
}

// scanFile calls fn with each object of one file, and reports every problem of the file as
// ReadFile does; n counts the objects.
func (in *Inputs) scanFile(f File, fn func(Object)) (n int, err error) {
	rc, err := in.Open(f)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return scanAll(NewReader(f.Name, rc), fn)
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
