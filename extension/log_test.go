package extension_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/extension"
	"github.com/admitkit/admit/internal/lockedbuf"
)

type logLine struct {
	Level, Msg, Extension string
	Ignored               *bool `json:",omitempty"`
}

// logsOf runs one CallAll over fourExtensions with a logger at level and returns the lines,
// sorted (calls run concurrently).
func logsOf(t *testing.T, level slog.Level) []logLine {
	t.Helper()
	var buf lockedbuf.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level, ReplaceAttr: extension.ReplaceLevelName}))
	caller := newCaller(t, fourExtensions(t), extension.Options{Logger: logger})
	_, _ = extension.CallAll[upgradeResponse](context.Background(), caller, extension.Request{Hook: upgradeHook(), Namespace: "default"})

	var lines []logLine
	for _, text := range logRecords(&buf) {
		var l struct {
			Level, Msg, Extension string
			Ignored               *bool
		}
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			t.Fatalf("log line %q: %v", text, err)
		}
		lines = append(lines, logLine{Level: l.Level, Msg: l.Msg, Extension: l.Extension, Ignored: l.Ignored})
	}
	slices.SortFunc(lines, func(a, b logLine) int {
		return strings.Compare(a.Level+a.Msg+a.Extension, b.Level+b.Msg+b.Extension)
	})
	return lines
}

func TestLogLevels(t *testing.T) {
	yes, no := true, false
	errorsOnly := []logLine{
		{Level: "ERROR", Msg: "calling extension failed", Extension: "broken", Ignored: &no},
		{Level: "ERROR", Msg: "calling extension failed", Extension: "garbled", Ignored: &yes},
		{Level: "ERROR", Msg: "extension answered Failure", Extension: "no"},
	}
	debug := append(slices.Clone(errorsOnly),
		logLine{Level: "DEBUG", Msg: "calling extension", Extension: "broken"},
		logLine{Level: "DEBUG", Msg: "calling extension", Extension: "garbled"},
		logLine{Level: "DEBUG", Msg: "calling extension", Extension: "no"},
		logLine{Level: "DEBUG", Msg: "calling extension", Extension: "ok"},
		logLine{Level: "DEBUG", Msg: "calling extensions"},
	)
	trace := append(slices.Clone(debug),
		logLine{Level: "TRACE", Msg: "extension answered", Extension: "no"},
		logLine{Level: "TRACE", Msg: "extension answered", Extension: "ok"},
	)
	sortLines := func(lines []logLine) []logLine {
		slices.SortFunc(lines, func(a, b logLine) int {
			return strings.Compare(a.Level+a.Msg+a.Extension, b.Level+b.Msg+b.Extension)
		})
		return lines
	}
	tests := []struct {
		level slog.Level
		want  []logLine
	}{
		{slog.LevelInfo, sortLines(errorsOnly)},
		{slog.LevelDebug, sortLines(debug)},
		{extension.LevelTrace, sortLines(trace)},
	}
	for _, tt := range tests {
		t.Run(tt.level.String(), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, logsOf(t, tt.level)); diff != "" {
				t.Errorf("log lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTraceLogCarriesTheAnswer(t *testing.T) {
	var buf lockedbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: extension.LevelTrace, ReplaceAttr: extension.ReplaceLevelName}))
	caller := newCaller(t, fourExtensions(t), extension.Options{Logger: logger})
	_, _ = extension.Call[upgradeResponse](context.Background(), caller, "no", extension.Request{Hook: upgradeHook()})
	var traced string
	for _, line := range logRecords(&buf) {
		if strings.Contains(line, "level=TRACE") {
			traced = line
		}
	}
	for _, want := range []string{`msg="extension answered"`, "extension=no", "httpStatus=200", "status=Failure", `message="blocked by policy"`, `body="{\"status\":\"Failure\"`} {
		if !strings.Contains(traced, want) {
			t.Errorf("trace line %q lacks %s", traced, want)
		}
	}
}
