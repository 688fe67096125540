package grbl

import (
	"errors"
	"strings"
)

// Sentinel errors. Every error a Client returns is an *OpError wrapping one of these, an
// *Error or *Alarm from the controller, or the caller's ctx error.
var (
	// ErrLinkLost: the transport died (EOF, a read or write error) or the controller stopped
	// answering status requests. The client is closed; every later call fails with it at once.
	ErrLinkLost = errors.New("link to the controller lost")
	// ErrNoWelcome: nothing greeted the client after it opened the port or reset the controller.
	ErrNoWelcome = errors.New("no welcome from the controller")
	// ErrReset: the controller reset (a requested or a spontaneous reset, a reboot) while the
	// call waited for its answer; the line may or may not have run.
	ErrReset = errors.New("controller reset")
	// ErrNoReply: the controller sat idle and never answered the line (its ok was lost). The
	// next call resynchronises with $G before it sends.
	ErrNoReply = errors.New("no answer to the line")
	// ErrBadArgument: the call's arguments cannot become a safe line (NaN, a newline, …).
	ErrBadArgument = errors.New("bad argument")
	// ErrOutOfTravel: a target lies outside the travel box given with WithTravel; nothing
	// was sent (GRBL's soft limits would have halted the machine with ALARM:2).
	ErrOutOfTravel = errors.New("target outside the machine's travel")
	// ErrLaserMode: GRBL runs in laser mode ($32=1), where M3 only fires while moving; the
	// spindle finger refuses to strike.
	ErrLaserMode = errors.New("laser mode is on ($32=1)")
	// ErrStopped: Stop was called while the call was under way (or waiting to send); its
	// line was not sent, so that a gesture being stopped does not move the machine again.
	ErrStopped = errors.New("stopped")
	// ErrClosed: Close was called.
	ErrClosed = errors.New("client closed")
)

// OpError is a failed call: which port, which operation (the line sent, or "open",
// "reset", …), why, and what to do about it. The hint of a wrapped *Error or *Alarm is
// used when Hint is empty.
type OpError struct {
	Port string
	Op   string
	Err  error
	Hint string
}

func (e *OpError) Error() string {
	var b strings.Builder
	b.WriteString("grbl ")
	b.WriteString(e.Port)
	b.WriteString(": ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	hint := e.Hint
	var h hinter
	if hint == "" && errors.As(e.Err, &h) {
		hint = h.Hint()
	}
	if hint != "" {
		b.WriteString(" (")
		b.WriteString(hint)
		b.WriteString(")")
	}
	return b.String()
}

func (e *OpError) Unwrap() error { return e.Err }
