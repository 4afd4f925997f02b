package testenv_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/internal/testenv"
)

// One environment for a whole test package, started in TestMain. (Not run here: it needs
// the binaries `make tools` provides.)
func ExampleMain() {
	var env *testenv.Env
	testMain := func(m *testing.M) {
		os.Exit(testenv.Main(m, &env, testenv.Options{}))
	}
	_ = testMain // func TestMain(m *testing.M) { ... } in a _test.go file
}

// Starting an environment directly, talking to it with client-go and with kubectl.
func ExampleStart() {
	ctx := context.Background()
	env, err := testenv.Start(ctx, testenv.Options{Logf: log.Printf})
	if err != nil {
		log.Fatal(err)
	}
	defer env.Stop()

	ns, err := env.Client.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ns.Name)

	out, _, err := env.Kubectl(ctx, nil, "get", "namespace", "default", "-o", "name")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(out))
}
