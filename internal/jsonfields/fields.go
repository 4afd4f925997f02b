package jsonfields

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// Field is one member of a struct's JSON object.
type Field struct {
	// Name is the member's name: the tag's, else the Go field's.
	Name string
	// Index leads from the struct to the field through embedded structs (reflect's FieldByIndex).
	Index []int
	// Type is the field's declared type.
	Type reflect.Type
	// Tagged says the name came from a json tag.
	Tagged    bool
	OmitEmpty bool
	OmitZero  bool
	// Quoted is the ",string" option on a type it applies to.
	Quoted bool
	// ViaPointer says the path passes through an embedded pointer, which decoding would have to
	// allocate and encoding would have to follow.
	ViaPointer bool
}

// Of returns t's JSON members in key order, found with encoding/json's rules: exported
// fields and those of embedded structs without a name, the shallowest of equal names winning, a
// tagged name before an untagged one at the same depth, and a name two fields share at the same
// depth dropped. It reports false when t embeds one struct type twice at one depth, a case
// encoding/json resolves with a rule not reproduced here.
func Of(t reflect.Type) ([]Field, bool) {
	type queued struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var fields []Field
	next := []queued{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count := map[reflect.Type]int{}
		for _, q := range current {
			count[q.typ]++
		}
		for _, q := range current {
			if count[q.typ] > 1 {
				return nil, false
			}
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := range q.typ.NumField() {
				sf := q.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(q.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := Field{Name: name, Index: index, Type: sf.Type, Tagged: name != "", ViaPointer: q.viaPointer,
						OmitEmpty: hasTagOption(opts, "omitempty"), OmitZero: hasTagOption(opts, "omitzero")}
					if name == "" {
						f.Name = sf.Name
					}
					f.Quoted = hasTagOption(opts, "string") && quotable(ft)
					fields = append(fields, f)
					continue
				}
				next = append(next, queued{typ: ft, index: index, viaPointer: q.viaPointer || sf.Type.Kind() == reflect.Pointer})
			}
		}
	}
	return dominant(fields), true
}

// quotable says whether the ",string" option applies to a field of type t (the field's type, or
// an unnamed pointer's element type): encoding/json honours it on booleans, strings and numbers.
func quotable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// dominant sorts the fields found at every depth by name and keeps, of each name, the one
// encoding/json encodes: the shallowest, a tagged one before an untagged one as shallow, and none
// when two are equally shallow and equally tagged. It reuses fields' storage.
func dominant(fields []Field) []Field {
	slices.SortFunc(fields, func(a, b Field) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.Index), len(b.Index)); c != 0 {
			return c
		}
		if a.Tagged != b.Tagged {
			if a.Tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.Index, b.Index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].Name == fields[i].Name {
			j++
		}
		// The first is dominant unless the next one is as shallow and as tagged.
		if j-i == 1 || len(fields[i].Index) != len(fields[i+1].Index) || fields[i].Tagged != fields[i+1].Tagged {
			out = append(out, fields[i])
		}
		i = j
	}
	return out
}

func hasTagOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// validTagName is encoding/json's rule for a usable name in a tag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
