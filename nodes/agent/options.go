package agent

import (
	"log/slog"
	"time"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// Budget bounds a run; zero fields take their defaults.
type Budget struct {
	MaxSteps   int // plan steps at most (default 10)
	MaxActions int // device tool calls in all (default 50)
	MaxTokens  int // prompt+completion tokens in all (default 200000); 0 = default
	KeepImages int // screenshots kept in the conversation (default 3): older ones are replaced by a note
}

// Budget defaults.
const (
	DefaultMaxSteps   = 10
	DefaultMaxActions = 50
	DefaultMaxTokens  = 200000
	DefaultKeepImages = 3
)

func (b Budget) withDefaults() Budget {
	def := func(v, d int) int {
		if v <= 0 {
			return d
		}
		return v
	}
	return Budget{def(b.MaxSteps, DefaultMaxSteps), def(b.MaxActions, DefaultMaxActions),
		def(b.MaxTokens, DefaultMaxTokens), def(b.KeepImages, DefaultKeepImages)}
}

// Options are what Run needs.
type Options struct {
	Goal   string
	Model  model.Chatter
	Device Device
	Budget Budget
	// Progress receives the run's events in order, from a goroutine of its own, so a slow,
	// blocking or panicking callback never stops the task; nil: none. Events still queued
	// shortly after Run ends are dropped.
	Progress func(Event)
	Log      *slog.Logger     // nil: none
	Clock    func() time.Time // nil: time.Now
	// Limit, when set, is the caller's own time limit that ctx's deadline is, set without a
	// TimeLimit cause (a tool's timeout_ms, which the node's scheduler applies): a model call
	// that deadline cuts short is told as that limit being too short, as for a cause.
	Limit *TimeLimit
}
