package extension

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// Aggregate is the combined answer of every extension CallAll called.
type Aggregate[R any] struct {
	// CommonResponse aggregates the answers: Status is Failure when any extension answered
	// Failure or had a calling error that was not ignored; Message lists those extensions in
	// name order as "<extension>: <message or calling error>", joined with "; "; and
	// RetryAfterSeconds is the lowest non-zero value any extension asked for (0: none did) —
	// whichever extension that was, which may not be one that failed: a caller that retries
	// sooner than a failed extension wants reads Results[i].Response itself.
	CommonResponse
	// Results has one entry per extension called, in name order.
	Results []Result[R]
}

// Result is what one extension contributed to an Aggregate.
type Result[R any] struct {
	Extension string
	// Response is the decoded answer, or the bare Success an ignored extension stands for; nil
	// after a calling error that was not ignored.
	Response *R
	// Err is the *CallingError or *FailureError of this extension, if any.
	Err error
	// Ignored is the calling error failurePolicy Ignore swallowed, if any.
	Ignored *CallingError
}

// CallAll calls every extension serving req.Hook whose namespaceSelector selects req.Namespace,
// concurrently (at most Options.MaxConcurrency at once), and waits for all of them. Each call
// behaves as Call does, failure policy included; the answers are aggregated in extension-name
// order, so the result never depends on which extension answered first.
//
// The error is a *CallAllError holding every *CallingError when there is any (a calling
// error wins), else every *FailureError, else nil. The Aggregate is returned with it. Unlike
// Cluster API, CallAll does not stop at the first error: every extension is heard, at the cost
// of waiting for the slowest one (each is still bounded by its timeout).
//
// A namespace lookup error fails the whole call before any extension is called.
func CallAll[R any, PR ResponsePointer[R]](ctx context.Context, c *Caller, req Request) (*Aggregate[R], error) {
	namespace := namespaceLabelsOnce{labeler: c.namespaces, namespace: req.Namespace}
	var selected []*registered
	var selectedNames, skippedNames []string
	for _, p := range c.registry.forHook(req.Hook) {
		ok, err := namespace.selects(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("calling extensions for hook %s: %w", req.Hook, err)
		}
		if !ok {
			skippedNames = append(skippedNames, p.Name)
			continue
		}
		selected = append(selected, p)
		selectedNames = append(selectedNames, p.Name)
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "calling extensions",
		slog.String("hook", req.Hook.String()), slog.String("namespace", req.Namespace),
		slog.Any("extensions", selectedNames), slog.Any("notSelected", skippedNames))

	body, err := json.Marshal(req.Body)
	if err != nil {
		return nil, fmt.Errorf("calling extensions for hook %s: encoding request: %w", req.Hook, err)
	}

	results := make([]Result[R], len(selected))
	slots := make(chan struct{}, c.maxConcurrency)
	var wg sync.WaitGroup
	for i, p := range selected {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			resp := PR(new(R))
			res := c.call(ctx, p, body, resp)
			result := Result[R]{Extension: p.Name, Response: resp, Err: res.err, Ignored: res.ignored}
			switch res.err.(type) {
			case *CallingError:
				result.Response = nil
			case nil:
				if res.ignored != nil {
					answerSuccess(resp)
				}
			}
			results[i] = result
		})
	}
	wg.Wait()
	return aggregate[R, PR](req.Hook, results)
}

// aggregate combines results (in name order) as CallAll documents.
func aggregate[R any, PR ResponsePointer[R]](hook Hook, results []Result[R]) (*Aggregate[R], error) {
	agg := &Aggregate[R]{CommonResponse: CommonResponse{Status: StatusSuccess}, Results: results}
	var callingErrs, failures []error
	var messages []string
	for _, r := range results {
		if r.Response != nil {
			retryAfter := PR(r.Response).Common().RetryAfterSeconds
			if retryAfter > 0 && (agg.RetryAfterSeconds == 0 || retryAfter < agg.RetryAfterSeconds) {
				agg.RetryAfterSeconds = retryAfter
			}
		}
		switch err := r.Err.(type) {
		case *CallingError:
			callingErrs = append(callingErrs, err)
			messages = append(messages, r.Extension+": "+err.Err.Error())
		case *FailureError:
			failures = append(failures, err)
			messages = append(messages, failureLine(r.Extension, err.Message))
		}
	}
	if len(messages) > 0 {
		agg.Status = StatusFailure
		agg.Message = strings.Join(messages, "; ")
	}
	switch {
	case len(callingErrs) > 0:
		return agg, &CallAllError{Hook: hook, Errors: callingErrs}
	case len(failures) > 0:
		return agg, &CallAllError{Hook: hook, Errors: failures}
	}
	return agg, nil
}

// failureLine is "<extension>: <message>", or the bare name when the extension gave no message.
func failureLine(extension, message string) string {
	if message == "" {
		return extension
	}
	return extension + ": " + message
}
