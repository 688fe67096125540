package main

import (
	"context"
	"fmt"
	"log/slog"
)

// redactingHandler takes a run's secrets out of its log lines: with --log-level debug the
// steps log each step's error, which may quote what the step typed.
type redactingHandler struct {
	next slog.Handler
	r    *redactor
}

// redactedLog is log with r's secrets taken out of every line.
func redactedLog(log *slog.Logger, r *redactor) *slog.Logger {
	return slog.New(redactingHandler{next: log.Handler(), r: r})
}

func (h redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.text(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return redactingHandler{next: h.next.WithAttrs(clean), r: h.r}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{next: h.next.WithGroup(name), r: h.r}
}

// attr is a without the secrets: strings, and values shown as text (errors, Stringers, ...).
func (h redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.text(v.String()))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]any, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		if s := fmt.Sprint(v.Any()); h.r.text(s) != s {
			return slog.String(a.Key, h.r.text(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
