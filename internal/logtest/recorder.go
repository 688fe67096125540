// Package logtest records what code logs through log/slog, for tests that check that a line is
// written (or is not, or at which level).
package logtest

import (
	"context"
	"log/slog"
	"sync"
)

// Recorder is a slog.Handler that keeps every record, at every level. Pass slog.New(r) to the
// code under test.
type Recorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (r *Recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *Recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *Recorder) WithGroup(string) slog.Handler            { return r }

// Handle keeps a copy of rec.
func (r *Recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}

// Records returns the records kept so far, in the order they were logged.
func (r *Recorder) Records() []slog.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]slog.Record(nil), r.records...)
}
