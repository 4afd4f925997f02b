package extension_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/extension"
)

// behaviour is what a test extension does when called.
type behaviour string

const (
	succeeds       behaviour = "success"
	callFails      behaviour = "calling-error"
	answersFailure behaviour = "failure"
	failPolicy               = extension.FailurePolicyFail
	ignore                   = extension.FailurePolicyIgnore
)

// matrixNames are the three test extensions, in registration order, which is not their name
// order. Each fails to be called in its own way (see matrixCallingCause), so one matrix covers
// non-200, undecodable and redirect answers.
func matrixNames() []string { return []string{"c-ext", "a-ext", "b-ext"} }

// matrixRetryAfter is what each extension asks for when it answers (Success or Failure).
func matrixRetryAfter(name string) int32 {
	return map[string]int32{"a-ext": 5, "b-ext": 0, "c-ext": 3}[name]
}

// matrixCallingCause is the cause of each extension's calling error, as the aggregate quotes it.
func matrixCallingCause(name string) string {
	return map[string]string{
		"a-ext": `HTTP status 500, want 200: body "boom"`,
		"b-ext": `invalid response: response has unknown status "Maybe" (want "Success" or "Failure")`,
		"c-ext": `HTTP status 307, want 200: redirect to "/elsewhere" refused`,
	}[name]
}

// matrixServer serves /<name>/<behaviour> for every test extension.
func matrixServer(t *testing.T, ca *testCA) (string, *hits) {
	mux := http.NewServeMux()
	for _, name := range matrixNames() {
		mux.Handle("/"+name+"/"+string(succeeds), success(matrixRetryAfter(name)))
		mux.Handle("/"+name+"/"+string(answersFailure), failure(name+" says no", matrixRetryAfter(name)))
	}
	mux.Handle("/a-ext/"+string(callFails), raw(http.StatusInternalServerError, "boom"))
	mux.Handle("/b-ext/"+string(callFails), raw(http.StatusOK, `{"status":"Maybe"}`))
	mux.Handle("/c-ext/"+string(callFails), http.RedirectHandler("/elsewhere", http.StatusTemporaryRedirect))
	h := &hits{}
	mux.Handle("/elsewhere", success(0))
	return ca.serve(t, h.wrap(mux)).URL, h
}

// setup is how one matrix extension behaves.
type setup struct {
	behaviour behaviour
	policy    extension.FailurePolicy
}

// outcome summarises a CallAll result for comparison.
type outcome struct {
	Status     extension.ResponseStatus
	Message    string
	RetryAfter int32
	// ErrorKind is "calling", "failure" or "" and ErrorExtensions the extensions in the error.
	ErrorKind       string
	ErrorExtensions []string
	Results         []resultOutcome
}

type resultOutcome struct {
	Extension string
	ErrorKind string
	Ignored   bool
	// Status of the returned response, "" when none.
	Status extension.ResponseStatus
}

func summarise(t *testing.T, agg *extension.Aggregate[upgradeResponse], err error) outcome {
	t.Helper()
	out := outcome{Status: agg.Status, Message: agg.Message, RetryAfter: agg.RetryAfterSeconds}
	out.ErrorKind, out.ErrorExtensions = errorKind(t, err)
	for _, r := range agg.Results {
		ro := resultOutcome{Extension: r.Extension, Ignored: r.Ignored != nil}
		ro.ErrorKind, _ = errorKind(t, r.Err)
		if r.Response != nil {
			ro.Status = r.Response.Status
		}
		out.Results = append(out.Results, ro)
	}
	return out
}

// errorKind classifies err through errors.As, as a user of the package would.
func errorKind(t *testing.T, err error) (string, []string) {
	t.Helper()
	if err == nil {
		return "", nil
	}
	var names []string
	var callAll *extension.CallAllError
	if errors.As(err, &callAll) {
		for _, e := range callAll.Errors {
			var calling *extension.CallingError
			var failed *extension.FailureError
			switch {
			case errors.As(e, &calling):
				names = append(names, calling.Extension)
			case errors.As(e, &failed):
				names = append(names, failed.Extension)
			}
		}
	}
	var calling *extension.CallingError
	var failed *extension.FailureError
	switch {
	case errors.As(err, &calling):
		return "calling", names
	case errors.As(err, &failed):
		return "failure", names
	}
	t.Fatalf("error of unexpected type %T: %v", err, err)
	return "", nil
}

// expect is the oracle: what CallAll must return for setups, written from the specification
// independently of the implementation.
func expect(setups map[string]setup) outcome {
	out := outcome{Status: extension.StatusSuccess}
	var messages, callingNames, failureNames []string
	for _, name := range []string{"a-ext", "b-ext", "c-ext"} { // name order
		s, ok := setups[name]
		if !ok {
			continue
		}
		r := resultOutcome{Extension: name}
		answered := false
		switch {
		case s.behaviour == succeeds:
			r.Status, answered = extension.StatusSuccess, true
		case s.behaviour == answersFailure:
			r.Status, r.ErrorKind, answered = extension.StatusFailure, "failure", true
			failureNames = append(failureNames, name)
			messages = append(messages, name+": "+name+" says no")
		case s.policy == ignore:
			r.Status, r.Ignored = extension.StatusSuccess, true
		default:
			r.ErrorKind = "calling"
			callingNames = append(callingNames, name)
			messages = append(messages, name+": "+matrixCallingCause(name))
		}
		if ra := matrixRetryAfter(name); answered && ra > 0 && (out.RetryAfter == 0 || ra < out.RetryAfter) {
			out.RetryAfter = ra
		}
		out.Results = append(out.Results, r)
	}
	if len(messages) > 0 {
		out.Status, out.Message = extension.StatusFailure, strings.Join(messages, "; ")
	}
	switch {
	case len(callingNames) > 0:
		out.ErrorKind, out.ErrorExtensions = "calling", callingNames
	case len(failureNames) > 0:
		out.ErrorKind, out.ErrorExtensions = "failure", failureNames
	}
	return out
}

// allSetups enumerates every assignment of {success, calling error, failure} × {Fail, Ignore}
// to the first n matrix extensions.
func allSetups(n int) []map[string]setup {
	choices := []setup{}
	for _, b := range []behaviour{succeeds, callFails, answersFailure} {
		for _, p := range []extension.FailurePolicy{failPolicy, ignore} {
			choices = append(choices, setup{b, p})
		}
	}
	out := []map[string]setup{{}}
	for _, name := range matrixNames()[:n] {
		var next []map[string]setup
		for _, partial := range out {
			for _, c := range choices {
				m := map[string]setup{name: c}
				for k, v := range partial {
					m[k] = v
				}
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

func describe(setups map[string]setup) string {
	var parts []string
	for _, name := range matrixNames() {
		if s, ok := setups[name]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s/%s", name, s.behaviour, s.policy))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

func callAllWith(t *testing.T, base string, ca *testCA, setups map[string]setup) (*extension.Aggregate[upgradeResponse], error) {
	t.Helper()
	var exts []extension.Extension
	for _, name := range matrixNames() { // registration order differs from name order
		if s, ok := setups[name]; ok {
			exts = append(exts, urlExtension(name, base+"/"+name+"/"+string(s.behaviour), ca, s.policy))
		}
	}
	caller := newCaller(t, register(t, exts...), extension.Options{MaxConcurrency: 2})
	return extension.CallAll[upgradeResponse](context.Background(), caller,
		extension.Request{Hook: upgradeHook(), Namespace: "default", Body: upgradeRequest{Version: "v1.36.0"}})
}

// TestCallAllMatrix runs every combination for 0 to 3 extensions against the oracle.
func TestCallAllMatrix(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	base, h := matrixServer(t, ca)
	for n := 0; n <= len(matrixNames()); n++ {
		for _, setups := range allSetups(n) {
			t.Run(describe(setups), func(t *testing.T) {
				agg, err := callAllWith(t, base, ca, setups)
				if diff := cmp.Diff(expect(setups), summarise(t, agg, err)); diff != "" {
					t.Errorf("CallAll outcome (-want +got):\n%s", diff)
				}
			})
		}
	}
	if got := h.of("/elsewhere"); got != 0 {
		t.Errorf("redirect target was called %d times, want 0 (redirects must not be followed)", got)
	}
}

// TestCallAllExamples spells out a few matrix rows with literal expectations, as documentation.
func TestCallAllExamples(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	base, _ := matrixServer(t, ca)
	tests := []struct {
		name   string
		setups map[string]setup
		want   outcome
	}{{
		name:   "no extension serves the hook",
		setups: map[string]setup{},
		want:   outcome{Status: extension.StatusSuccess},
	}, {
		name: "all succeed: lowest non-zero RetryAfter",
		setups: map[string]setup{
			"a-ext": {succeeds, failPolicy}, "b-ext": {succeeds, failPolicy}, "c-ext": {succeeds, failPolicy},
		},
		want: outcome{Status: extension.StatusSuccess, RetryAfter: 3, Results: []resultOutcome{
			{Extension: "a-ext", Status: extension.StatusSuccess},
			{Extension: "b-ext", Status: extension.StatusSuccess},
			{Extension: "c-ext", Status: extension.StatusSuccess},
		}},
	}, {
		name: "two failures: messages in name order",
		setups: map[string]setup{
			"a-ext": {answersFailure, failPolicy}, "b-ext": {succeeds, failPolicy}, "c-ext": {answersFailure, ignore},
		},
		want: outcome{
			Status: extension.StatusFailure, Message: "a-ext: a-ext says no; c-ext: c-ext says no", RetryAfter: 3,
			ErrorKind: "failure", ErrorExtensions: []string{"a-ext", "c-ext"},
			Results: []resultOutcome{
				{Extension: "a-ext", ErrorKind: "failure", Status: extension.StatusFailure},
				{Extension: "b-ext", Status: extension.StatusSuccess},
				{Extension: "c-ext", ErrorKind: "failure", Status: extension.StatusFailure},
			},
		},
	}, {
		name: "a calling error wins over a failure",
		setups: map[string]setup{
			"a-ext": {answersFailure, failPolicy}, "b-ext": {callFails, failPolicy}, "c-ext": {callFails, failPolicy},
		},
		want: outcome{
			Status: extension.StatusFailure,
			Message: `a-ext: a-ext says no; b-ext: invalid response: response has unknown status "Maybe" (want "Success" or "Failure"); ` +
				`c-ext: HTTP status 307, want 200: redirect to "/elsewhere" refused`,
			RetryAfter: 5, ErrorKind: "calling", ErrorExtensions: []string{"b-ext", "c-ext"},
			Results: []resultOutcome{
				{Extension: "a-ext", ErrorKind: "failure", Status: extension.StatusFailure},
				{Extension: "b-ext", ErrorKind: "calling"},
				{Extension: "c-ext", ErrorKind: "calling"},
			},
		},
	}, {
		name: "ignored calling errors leave a success",
		setups: map[string]setup{
			"a-ext": {callFails, ignore}, "b-ext": {callFails, ignore}, "c-ext": {succeeds, failPolicy},
		},
		want: outcome{Status: extension.StatusSuccess, RetryAfter: 3, Results: []resultOutcome{
			{Extension: "a-ext", Ignored: true, Status: extension.StatusSuccess},
			{Extension: "b-ext", Ignored: true, Status: extension.StatusSuccess},
			{Extension: "c-ext", Status: extension.StatusSuccess},
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agg, err := callAllWith(t, base, ca, tt.setups)
			if diff := cmp.Diff(tt.want, summarise(t, agg, err)); diff != "" {
				t.Errorf("CallAll outcome (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCallAllErrorMessageListsEveryCallingError(t *testing.T) {
	ca := newTestCA(t)
	base, _ := matrixServer(t, ca)
	_, err := callAllWith(t, base, ca, map[string]setup{
		"a-ext": {callFails, failPolicy}, "b-ext": {answersFailure, failPolicy}, "c-ext": {callFails, failPolicy},
	})
	want := `calling extensions for hook hooks.test.admitkit.io/v1alpha1/BeforeUpgrade: ` +
		`calling extension "a-ext": HTTP status 500, want 200: body "boom"; ` +
		`calling extension "c-ext": HTTP status 307, want 200: redirect to "/elsewhere" refused`
	if err == nil || err.Error() != want {
		t.Errorf("CallAll error:\n got %v\nwant %s", err, want)
	}
}

func TestCallAllReturnsTheDecodedResponses(t *testing.T) {
	ca := newTestCA(t)
	mux := http.NewServeMux()
	mux.Handle("/a", answer(upgradeResponse{CommonResponse: extension.CommonResponse{Status: extension.StatusSuccess}, Note: "from a"}))
	mux.Handle("/b", answer(upgradeResponse{CommonResponse: extension.CommonResponse{Status: extension.StatusFailure, Message: "no"}, Note: "from b"}))
	base := ca.serve(t, mux).URL
	caller := newCaller(t, register(t,
		urlExtension("b", base+"/b", ca, failPolicy), urlExtension("a", base+"/a", ca, failPolicy)), extension.Options{})

	agg, _ := extension.CallAll[upgradeResponse](context.Background(), caller, extension.Request{Hook: upgradeHook()})
	var notes []string
	for _, r := range agg.Results {
		notes = append(notes, r.Extension+"="+r.Response.Note)
	}
	if diff := cmp.Diff([]string{"a=from a", "b=from b"}, notes); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
}

// TestCallAllBoundsConcurrency checks that no more than MaxConcurrency calls are in flight.
func TestCallAllBoundsConcurrency(t *testing.T) {
	checkNoGoroutineLeak(t)
	const bound, extensions = 2, 6
	ca := newTestCA(t)
	var mu sync.Mutex
	inFlight, maxInFlight := 0, 0
	base := ca.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		maxInFlight = max(maxInFlight, inFlight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond) // long enough for unbounded calls to overlap
		mu.Lock()
		inFlight--
		mu.Unlock()
		success(0)(w, r)
	})).URL
	var exts []extension.Extension
	for i := range extensions {
		exts = append(exts, urlExtension(fmt.Sprintf("ext-%d", i), base, ca, failPolicy))
	}
	caller := newCaller(t, register(t, exts...), extension.Options{MaxConcurrency: bound})

	agg, err := extension.CallAll[upgradeResponse](context.Background(), caller, extension.Request{Hook: upgradeHook()})
	if err != nil {
		t.Fatal(err)
	}
	if len(agg.Results) != extensions {
		t.Errorf("got %d results, want %d", len(agg.Results), extensions)
	}
	if maxInFlight > bound {
		t.Errorf("%d calls were in flight at once, want at most %d", maxInFlight, bound)
	}
}
