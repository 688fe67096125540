package adbsim

import (
	"context"
	"strings"
	"time"
)

// service is what runs on an open stream; it closes the stream when done.
type service struct {
	run   func(s *stream)
	reads bool // it reads what the host writes; otherwise that is acknowledged and dropped
}

// service returns the service an OPEN names; run is nil for one the device does not offer.
//
//	shell:CMD, shell,OPTS:CMD   run CMD, write its output, close
//	exec:CMD                    the same (the output is binary-safe either way: no PTY here)
//	sync:                       file transfer (sync.go)
func (d *Device) service(name string) service {
	kind, arg, ok := strings.Cut(name, ":")
	if !ok {
		return service{}
	}
	kind, _, _ = strings.Cut(kind, ",") // shell,raw:… and shell,v2,…: options are ignored
	switch kind {
	case "shell":
		if arg == "" {
			return service{run: func(s *stream) {
				defer s.close()
				_, _ = s.Write([]byte("corral sim: no interactive shell here; run adb shell COMMAND\n"))
			}}
		}
		return service{run: func(s *stream) { d.runCommand(s, arg) }}
	case "exec":
		return service{run: func(s *stream) { d.runCommand(s, arg) }}
	case "sync":
		if arg == "" {
			return service{run: d.serveSync, reads: true}
		}
	}
	return service{}
}

// runCommand logs cmd, waits out the delay, interprets it and writes its output. The delay is
// read before the command is logged, so a test that sees the command knows its delay.
func (d *Device) runCommand(s *stream, cmd string) {
	defer s.close()
	delay := time.Duration(d.delay.Load())
	d.cmds.add(cmd)
	if err := sleep(s.ctx, delay); err != nil {
		return
	}
	out := d.run(s.ctx, cmd)
	if len(out) > 0 && s.ctx.Err() == nil {
		_, _ = s.Write(out)
	}
}

// sleep waits dur, or until ctx ends.
func sleep(ctx context.Context, dur time.Duration) error {
	if dur <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
