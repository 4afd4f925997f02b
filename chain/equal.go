package chain

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// semanticallyEqual answers as apiequality.Semantic.DeepEqual does: nil and empty slices and
// maps are equal, and Quantity, Time, MicroTime, FieldsV1 and label and field selectors are
// compared by Semantic's own functions for them. It is the chain's change test (after every
// built-in plugin that took an object, every mutating policy, every webhook's patch), so it walks
// the two objects once without allocating: Semantic's walk records every struct, slice and map
// it enters, against cycles that an API object, decoded or deep-copied, cannot have, and boxes
// every leaf to compare it; that was a twentieth of an admission's allocation.
func semanticallyEqual(before, after runtime.Object) bool {
	if before == nil || after == nil {
		return before == after
	}
	x, y := reflect.ValueOf(before), reflect.ValueOf(after)
	if x.Type() != y.Type() {
		return false
	}
	return valuesEqual(x, y)
}

func valuesEqual(x, y reflect.Value) bool {
	if !x.IsValid() || !y.IsValid() {
		return x.IsValid() == y.IsValid()
	}
	t := x.Type()
	if t != y.Type() {
		return false
	}
	switch x.Kind() {
	case reflect.Struct:
		if equal, special := specialStructsEqual(t, x, y); special {
			return equal
		}
		if sameAddress(x, y) {
			return true
		}
		for i, n := 0, x.NumField(); i < n; i++ {
			if !valuesEqual(x.Field(i), y.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		return valuesEqual(x.Elem(), y.Elem())
	case reflect.Interface:
		switch t {
		case reflect.TypeFor[labels.Selector]():
			return x.Interface().(labels.Selector).String() == y.Interface().(labels.Selector).String()
		case reflect.TypeFor[fields.Selector]():
			return x.Interface().(fields.Selector).String() == y.Interface().(fields.Selector).String()
		}
		if x.IsNil() || y.IsNil() {
			return x.IsNil() == y.IsNil()
		}
		return valuesEqual(x.Elem(), y.Elem())
	case reflect.Slice:
		if equal, decided := lengthsDecide(x, y); decided {
			return equal
		}
		if t == reflect.TypeFor[[]byte]() {
			return string(x.Bytes()) == string(y.Bytes())
		}
		return elementsEqual(x, y)
	case reflect.Array:
		return sameAddress(x, y) || elementsEqual(x, y)
	case reflect.Map:
		return mapsEqual(t, x, y)
	case reflect.Func:
		return x.IsNil() && y.IsNil()
	case reflect.Bool:
		return x.Bool() == y.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return x.Int() == y.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return x.Uint() == y.Uint()
	case reflect.Float32, reflect.Float64:
		return x.Float() == y.Float()
	case reflect.Complex64, reflect.Complex128:
		return x.Complex() == y.Complex()
	case reflect.String:
		return x.String() == y.String()
	default: // channels and unsafe pointers: equal when they are the same
		return x.Pointer() == y.Pointer()
	}
}

// specialStructsEqual compares the struct types Semantic has functions for, as those functions
// do; special is false for any other type.
func specialStructsEqual(t reflect.Type, x, y reflect.Value) (equal, special bool) {
	switch t {
	case reflect.TypeFor[resource.Quantity]():
		a, b := pointerTo[resource.Quantity](x), pointerTo[resource.Quantity](y)
		return a.Cmp(*b) == 0, true
	case reflect.TypeFor[metav1.Time]():
		a, b := pointerTo[metav1.Time](x), pointerTo[metav1.Time](y)
		return a.UTC() == b.UTC(), true
	case reflect.TypeFor[metav1.MicroTime]():
		a, b := pointerTo[metav1.MicroTime](x), pointerTo[metav1.MicroTime](y)
		return a.UTC() == b.UTC(), true
	case reflect.TypeFor[metav1.FieldsV1]():
		a, b := pointerTo[metav1.FieldsV1](x), pointerTo[metav1.FieldsV1](y)
		return a.Equal(*b), true
	}
	return false, false
}

// mapsEqual compares maps as Semantic does: nil equals empty, and every key of x holds an equal
// value in y. The maps API objects hold most (labels, annotations, resource lists) are compared
// as Go maps, which needs no copy of each key and value.
func mapsEqual(t reflect.Type, x, y reflect.Value) bool {
	if equal, decided := lengthsDecide(x, y); decided {
		return equal
	}
	if x.CanInterface() && y.CanInterface() {
		switch t {
		case reflect.TypeFor[map[string]string]():
			a, b := x.Interface().(map[string]string), y.Interface().(map[string]string)
			for k, v := range a {
				if w, ok := b[k]; !ok || v != w {
					return false
				}
			}
			return true
		case reflect.TypeFor[api.ResourceList]():
			a, b := x.Interface().(api.ResourceList), y.Interface().(api.ResourceList)
			for k, v := range a {
				if w, ok := b[k]; !ok || v.Cmp(w) != 0 {
					return false
				}
			}
			return true
		}
	}
	for it := x.MapRange(); it.Next(); {
		if !valuesEqual(it.Value(), y.MapIndex(it.Key())) {
			return false
		}
	}
	return true
}

// lengthsDecide answers for two slices or two maps where their lengths or their memory decide:
// nil and empty are equal, different lengths are not, and the same memory is.
func lengthsDecide(x, y reflect.Value) (equal, decided bool) {
	if emptyX, emptyY := x.Len() == 0, y.Len() == 0; emptyX || emptyY {
		return emptyX == emptyY, true
	}
	if x.Len() != y.Len() {
		return false, true
	}
	if x.Pointer() == y.Pointer() {
		return true, true
	}
	return false, false
}

// elementsEqual compares two slices or arrays of the same length, element by element.
func elementsEqual(x, y reflect.Value) bool {
	for i, n := 0, x.Len(); i < n; i++ {
		if !valuesEqual(x.Index(i), y.Index(i)) {
			return false
		}
	}
	return true
}

// pointerTo points at v's value: v itself when it is addressable (inside an object reached
// through a pointer), or a copy (a map's value).
func pointerTo[T any](v reflect.Value) *T {
	if v.CanAddr() {
		return v.Addr().Interface().(*T)
	}
	value := v.Interface().(T)
	return &value
}

// sameAddress says whether x and y are the same memory: Semantic takes that as equal without
// looking, which matters only for a float that is not a number.
func sameAddress(x, y reflect.Value) bool {
	return x.CanAddr() && y.CanAddr() && x.UnsafeAddr() == y.UnsafeAddr()
}
