package actors

import (
	"fmt"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
)

// A device actor's worker and timers report to it by message. When the device is disconnected
// its actor stops at once, and what they report afterwards (the cancelled task's workDone, its
// graceOver, a health check's healthDone, a recheck's recheckHealth) reaches no one: a dead
// letter, and an expected one. protoactor logs dead letters at INFO; these four it skips
// (IgnoreDeadLetterLogging), and LogDeadLetters logs them at DEBUG instead. Other dead letters
// keep protoactor's logging.

// IgnoreDeadLetterLogging marks workDone as expected after its actor stopped.
func (workDone) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging marks graceOver as expected after its actor stopped.
func (graceOver) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging marks healthDone as expected after its actor stopped.
func (healthDone) IgnoreDeadLetterLogging() {}

// LogDeadLetters logs, at DEBUG on log, the device actors' reports that arrived after their
// actor stopped (protoactor does not log them). Call it once per actor system.
func LogDeadLetters(sys *actor.ActorSystem, log *slog.Logger) {
	sys.EventStream.Subscribe(func(msg any) {
		dl, ok := msg.(*actor.DeadLetterEvent)
		if !ok {
			return
		}
		var what string
		switch m := dl.Message.(type) {
		case workDone:
			what = fmt.Sprintf("task %s ended", m.id)
		case graceOver:
			what = fmt.Sprintf("grace of task %s over", m.id)
		case healthDone:
			what = "health check done"
		case recheckHealth:
			what = "health recheck due"
		default:
			return
		}
		log.Debug("device actor already stopped (device removed)", "pid", dl.PID.String(), "report", what)
	})
}
