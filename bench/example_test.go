package bench_test

import (
	"fmt"

	"github.com/admitkit/admit/bench"
)

// The defaulter every comparison runs, and the check that a server did the same.
func ExampleInject() {
	pod, err := bench.Pod()
	if err != nil {
		panic(err)
	}
	fmt.Println(bench.CheckInjected(pod) != nil, len(pod.Spec.Containers))
	bench.Inject(pod)
	fmt.Println(bench.CheckInjected(pod), len(pod.Spec.Containers))
	// Output:
	// true 2
	// <nil> 3
}
