package extension

import "log/slog"

// LevelTrace is the level of the most detailed logs: what each extension answered (status,
// message, retryAfterSeconds, HTTP status and the start of the body). log/slog defines no trace
// level; this one sits as far below Debug as Debug sits below Info. Enable it with
// slog.HandlerOptions{Level: extension.LevelTrace}; ReplaceLevelName prints it as TRACE.
//
// The caller logs errors (ignored ones included) at slog.LevelError, the extensions it calls at
// slog.LevelDebug, and their answers at LevelTrace.
const LevelTrace = slog.Level(-8)

// ReplaceLevelName is a slog.HandlerOptions.ReplaceAttr function that prints LevelTrace as
// "TRACE" instead of slog's default "DEBUG-4".
func ReplaceLevelName(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.LevelKey {
		if level, ok := a.Value.Any().(slog.Level); ok && level == LevelTrace {
			return slog.String(slog.LevelKey, "TRACE")
		}
	}
	return a
}

// maxLoggedBody bounds the part of an answer's body quoted in errors and trace logs.
const maxLoggedBody = 512
