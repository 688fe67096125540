package android

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"
)

// How keep starts again a private server that exited: at once after one that ran a while,
// then less and less often while it keeps exiting or failing to start, so that a server that
// cannot run costs little.
const (
	restartMin  = 500 * time.Millisecond
	restartMax  = 30 * time.Second
	stableAfter = time.Minute // a server that ran this long is not crashing in a loop
	ownDownWait = time.Second // how long a server that does not answer may take to be seen exited
)

// keep watches the server until ctx ends (Stop): one that exits is logged at WARN once, with
// its exit status, started again on the same port (the node's Attach follows that address),
// and connected again to the devices given to Connect.
func (p *PrivateServer) keep(ctx context.Context) {
	defer close(p.kept)
	wait := restartMin
	for {
		proc := p.current()
		select {
		case <-ctx.Done():
			return
		case <-proc.exited:
		}
		p.setRestarting(true)
		ran := time.Since(proc.started)
		log := p.log.With("adb_server", p.Addr())
		attrs := []any{"pid", proc.cmd.Process.Pid, "exit", proc.cmd.ProcessState.String(), "ran", ran.Round(time.Second)}
		if out := proc.output.String(); out != "" {
			attrs = append(attrs, "output", out)
		}
		if ran >= stableAfter {
			wait = 0
		}
		log.Warn("corral's own adb server for simulated devices exited; restarting it", append(attrs, "in", wait)...)
		for failed := false; ; failed = true {
			if sleep(ctx, wait) != nil {
				return
			}
			wait = min(max(2*wait, restartMin), restartMax)
			err := p.restart(ctx)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return
			}
			level := slog.LevelWarn
			if failed {
				level = slog.LevelDebug // said once at WARN
			}
			log.Log(ctx, level, "corral's own adb server for simulated devices does not start again; retrying", "err", err, "in", wait)
		}
		p.setRestarting(false)
		log.Info("corral's own adb server for simulated devices restarted", "pid", p.current().cmd.Process.Pid)
	}
}

// restart starts the server again on its port and connects it to the devices it had.
func (p *PrivateServer) restart(ctx context.Context) error {
	// Something else there (an adb server started by hand) would answer for ours.
	l, err := net.Listen("tcp", p.Addr())
	if err != nil {
		return fmt.Errorf("its port %d is taken: end what listens there (adb -P %d kill-server) or restart the node: %w",
			p.port, p.port, err)
	}
	_ = l.Close()
	if err := p.start(ctx); err != nil {
		return err
	}
	p.mu.Lock()
	devices := append([]string(nil), p.connected...)
	p.mu.Unlock()
	for _, addr := range devices {
		cctx, cancel := context.WithTimeout(ctx, adbCommandTimeout)
		if err := p.connect(cctx, addr); err != nil && ctx.Err() == nil {
			p.log.Warn("simulated android device not connected to the restarted adb server", "adb_server", p.Addr(), "device", addr, "err", err)
		}
		cancel()
	}
	return nil
}

func (p *PrivateServer) setRestarting(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.restarting = on
}

// OwnServerDownError is corral's own adb server for simulated devices not answering: not the
// user's to start, as a *ServerDownError says, but the node's, which starts it again if it
// exited.
type OwnServerDownError struct {
	Exited bool  // it exited, and is being started again
	Err    error // the *ServerDownError
}

func (e *OwnServerDownError) Error() string {
	if e.Exited {
		return "corral's own adb server for simulated devices exited; restarting it"
	}
	cause := e.Err
	if down, ok := errors.AsType[*ServerDownError](e.Err); ok {
		cause = netCause(down.Err)
	}
	return fmt.Sprintf("corral's own adb server for simulated devices does not answer: the node starts it again if it exits; restart the node if this lasts (%v)", cause)
}

func (e *OwnServerDownError) Unwrap() error { return e.Err }

// downError is err, the server not answering Watch, as its devices' reason should say it: that
// it exited and is restarting, when it has, or soon does (the tracker's connection breaks a
// moment before the process is reaped).
func (p *PrivateServer) downError(err error) error {
	p.mu.Lock()
	proc, restarting := p.proc, p.restarting
	p.mu.Unlock()
	return &OwnServerDownError{Exited: restarting || proc.waitExit(ownDownWait), Err: err}
}
