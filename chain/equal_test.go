package chain

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsfuzzer "k8s.io/kubernetes/pkg/apis/apps/fuzzer"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchfuzzer "k8s.io/kubernetes/pkg/apis/batch/fuzzer"
	api "k8s.io/kubernetes/pkg/apis/core"
	corefuzzer "k8s.io/kubernetes/pkg/apis/core/fuzzer"
	"k8s.io/kubernetes/pkg/apis/networking"
	networkingfuzzer "k8s.io/kubernetes/pkg/apis/networking/fuzzer"
)

func TestSemanticallyEqual(t *testing.T) {
	pod := func(change func(*api.Pod)) runtime.Object {
		p := &api.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "b"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "i", Resources: api.ResourceRequirements{
				Requests: api.ResourceList{api.ResourceCPU: resource.MustParse("1")}}}}}}
		if change != nil {
			change(p)
		}
		return p
	}
	custom := func(spec map[string]any) runtime.Object {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": spec}}
	}
	var typedNil *api.Pod
	for _, c := range []struct {
		name string
		x, y runtime.Object
		want bool
	}{
		{"same", pod(nil), pod(nil), true},
		{"nil and empty map", pod(nil), pod(func(p *api.Pod) { p.Annotations = map[string]string{} }), true},
		{"nil and empty slice", pod(nil), pod(func(p *api.Pod) { p.Spec.Volumes = []api.Volume{} }), true},
		{"label", pod(nil), pod(func(p *api.Pod) { p.Labels["a"] = "c" }), false},
		{"label removed", pod(nil), pod(func(p *api.Pod) { p.Labels = map[string]string{"b": "b"} }), false},
		{"image", pod(nil), pod(func(p *api.Pod) { p.Spec.Containers[0].Image = "j" }), false},
		{"a quantity spelled otherwise", pod(nil), pod(func(p *api.Pod) {
			p.Spec.Containers[0].Resources.Requests[api.ResourceCPU] = resource.MustParse("1000m")
		}), true},
		{"a quantity changed", pod(nil), pod(func(p *api.Pod) {
			p.Spec.Containers[0].Resources.Requests[api.ResourceCPU] = resource.MustParse("2")
		}), false},
		{"a time in another zone", pod(func(p *api.Pod) { p.CreationTimestamp = metav1.Unix(100, 0) }),
			pod(func(p *api.Pod) {
				p.CreationTimestamp = metav1.NewTime(time.Unix(100, 0).In(time.FixedZone("x", 3600)))
			}), true},
		{"a time changed", pod(func(p *api.Pod) { p.CreationTimestamp = metav1.Unix(100, 0) }),
			pod(func(p *api.Pod) { p.CreationTimestamp = metav1.Unix(101, 0) }), false},
		{"a pointer set", pod(nil), pod(func(p *api.Pod) { p.Spec.Priority = new(int32) }), false},
		{"managed fields", pod(func(p *api.Pod) {
			p.ManagedFields = []metav1.ManagedFieldsEntry{{FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:a":{}}`)}}}
		}), pod(func(p *api.Pod) {
			p.ManagedFields = []metav1.ManagedFieldsEntry{{FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:b":{}}`)}}}
		}), false},
		{"another kind", pod(nil), &api.Service{}, false},
		{"a custom resource, nil and empty", custom(map[string]any{"tags": []any(nil)}), custom(map[string]any{"tags": []any{}}), true},
		{"a custom resource, null and empty", custom(map[string]any{"tags": nil}), custom(map[string]any{"tags": []any{}}), false},
		{"a custom resource changed", custom(map[string]any{"size": int64(1)}), custom(map[string]any{"size": int64(2)}), false},
		{"a custom resource, a number's type", custom(map[string]any{"size": int64(1)}), custom(map[string]any{"size": float64(1)}), false},
		{"nil", nil, nil, true},
		{"nil and an object", nil, pod(nil), false},
		{"a typed nil and nil", typedNil, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := apiequality.Semantic.DeepEqual(c.x, c.y)
			if want != c.want {
				t.Fatalf("the case is wrong: Semantic says %v", want)
			}
			if got := semanticallyEqual(c.x, c.y); got != want {
				t.Errorf("semanticallyEqual = %v, Semantic.DeepEqual = %v", got, want)
			}
			if got := semanticallyEqual(c.y, c.x); got != want {
				t.Errorf("reversed: semanticallyEqual = %v, Semantic.DeepEqual = %v", got, want)
			}
		})
	}
}

// TestSemanticallyEqualMatchesSemantic compares with apiequality.Semantic.DeepEqual on objects
// Kubernetes' own fuzzer functions fill, each against a copy with one value changed: changed in value,
// or only in spelling (nil for empty, a quantity or a time written otherwise).
func TestSemanticallyEqualMatchesSemantic(t *testing.T) {
	outcomes := map[bool]int{}
	for seed := int64(0); seed < 500; seed++ {
		outcomes[checkSemanticallyEqual(t, seed)]++
	}
	// The comparison is only as good as its cases: both answers must come up often.
	if outcomes[true] < 50 || outcomes[false] < 50 {
		t.Errorf("Semantic.DeepEqual said equal %d times and different %d times: the cases do not test both", outcomes[true], outcomes[false])
	}
}

func FuzzSemanticallyEqual(f *testing.F) {
	f.Add(int64(1))
	f.Fuzz(func(t *testing.T, seed int64) { checkSemanticallyEqual(t, seed) })
}

// checkSemanticallyEqual compares the two on an object the seed fills and a copy with one value
// changed, and returns Semantic's answer.
func checkSemanticallyEqual(t *testing.T, seed int64) bool {
	kinds := []func() runtime.Object{
		func() runtime.Object { return &api.Pod{} },
		func() runtime.Object { return &apps.Deployment{} },
		func() runtime.Object { return &api.Service{} },
		func() runtime.Object { return &batch.CronJob{} },
		func() runtime.Object { return &networking.Ingress{} },
	}
	rng := rand.New(rand.NewSource(seed))
	_, codecs := kubeScheme()
	filler := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, corefuzzer.Funcs, appsfuzzer.Funcs, batchfuzzer.Funcs, networkingfuzzer.Funcs),
		rand.NewSource(seed), codecs)
	x := kinds[rng.Intn(len(kinds))]()
	filler.Fill(x)
	y := x.DeepCopyObject()
	what := changeOneValue(rng, reflect.ValueOf(y))
	want := apiequality.Semantic.DeepEqual(x, y)
	if got := semanticallyEqual(x, y); got != want {
		t.Errorf("seed %d, %T, %s: semanticallyEqual = %v, Semantic.DeepEqual = %v", seed, x, what, got, want)
	}
	if got := semanticallyEqual(y, x); got != want {
		t.Errorf("seed %d, %T, %s, reversed: semanticallyEqual = %v, Semantic.DeepEqual = %v", seed, x, what, got, want)
	}
	return want
}

// changeOneValue changes one value reached from v, picked at random, and says what it did.
func changeOneValue(rng *rand.Rand, v reflect.Value) string {
	var values []reflect.Value
	var collect func(v reflect.Value)
	collect = func(v reflect.Value) {
		if !v.IsValid() {
			return
		}
		if v.CanSet() {
			values = append(values, v)
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				collect(v.Elem())
			}
		case reflect.Struct:
			switch v.Type() {
			case reflect.TypeFor[resource.Quantity](), reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime]():
				return
			}
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					collect(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				collect(v.Index(i))
			}
		}
	}
	collect(v)
	if len(values) == 0 {
		return "nothing changed"
	}
	target := values[rng.Intn(len(values))]
	path := target.Type().String()
	spelling := rng.Intn(2) == 0 // a change of spelling, not of value, where the type has one
	switch target.Type() {
	case reflect.TypeFor[resource.Quantity]():
		q := target.Addr().Interface().(*resource.Quantity)
		if spelling {
			*q = *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
			return path + " respelled"
		}
		q.Add(resource.MustParse("1"))
		return path + " increased"
	case reflect.TypeFor[metav1.Time]():
		tm := target.Addr().Interface().(*metav1.Time)
		if spelling {
			tm.Time = tm.In(time.FixedZone("elsewhere", 7200))
			return path + " in another zone"
		}
		tm.Time = tm.Add(time.Second)
		return path + " later"
	}
	switch target.Kind() {
	case reflect.String:
		target.SetString(target.String() + "x")
	case reflect.Bool:
		target.SetBool(!target.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		target.SetInt(target.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		target.SetUint(target.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		if spelling {
			target.SetFloat(math.NaN())
			return path + " not a number"
		}
		target.SetFloat(target.Float() + 1)
	case reflect.Slice, reflect.Map:
		switch {
		case target.Kind() == reflect.Map && target.Type().Elem() == reflect.TypeFor[resource.Quantity]() && target.Len() > 0:
			key := target.MapKeys()[0]
			q := target.MapIndex(key).Interface().(resource.Quantity)
			if spelling {
				q = *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
			} else {
				q.Add(resource.MustParse("1"))
			}
			target.SetMapIndex(key, reflect.ValueOf(q))
			return fmt.Sprintf("%s: a quantity changed (in spelling only: %v)", path, spelling)
		case target.Len() == 0 && target.IsNil():
			if target.Kind() == reflect.Slice {
				target.Set(reflect.MakeSlice(target.Type(), 0, 0))
			} else {
				target.Set(reflect.MakeMap(target.Type()))
			}
			return path + " made empty"
		case target.Len() == 0:
			target.Set(reflect.Zero(target.Type()))
			return path + " made nil"
		case target.Kind() == reflect.Slice:
			target.Set(target.Slice(0, target.Len()-1))
			return path + " shortened"
		default:
			target.SetMapIndex(target.MapKeys()[0], reflect.Value{})
			return path + " lost a key"
		}
	case reflect.Pointer, reflect.Interface:
		if target.IsNil() {
			return path + " left nil"
		}
		target.Set(reflect.Zero(target.Type()))
		return path + " made nil"
	default:
		return fmt.Sprintf("%s left", path)
	}
	return path + " changed"
}
