package adbsim

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
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
//	shell,v2,…:CMD              the same in shell protocol v2 packets, ending with the exit status
//	exec:CMD                    the same as shell: (the output is binary-safe: no PTY here)
//	exec:cat > /dev/input/eventN, shell:cat > …
//	                            what the host writes goes to an event device (evsink.go)
//	sync:                       file transfer (sync.go)
func (d *Device) service(name string) service {
	kind, arg, ok := strings.Cut(name, ":")
	if !ok {
		return service{}
	}
	kind, opts, _ := strings.Cut(kind, ",") // shell,raw:…: other options are ignored
	if kind == "shell" && arg != "" && slices.Contains(strings.Split(opts, ","), "v2") {
		return service{run: func(s *stream) { d.runCommand(s, arg, true) }}
	}
	if w, ok := eventWriterPath(arg); ok && (kind == "shell" || kind == "exec") {
		return service{run: func(s *stream) { d.serveEvents(s, arg, w) }, reads: true}
	}
	switch kind {
	case "shell":
		if arg == "" {
			return service{run: func(s *stream) {
				defer s.close()
				_, _ = s.Write([]byte("corral sim: no interactive shell here; run adb shell COMMAND\n"))
			}}
		}
		return service{run: func(s *stream) { d.runCommand(s, arg, false) }}
	case "exec":
		return service{run: func(s *stream) { d.runCommand(s, arg, false) }}
	case "sync":
		if arg == "" {
			return service{run: d.serveSync, reads: true}
		}
	}
	return service{}
}

// runCommand logs cmd, waits out the delay, interprets it and writes its output: as it is,
// or with v2 as shell protocol v2 packets (id, little-endian length, data) ending with the exit
// status, which is how a host tells a finished command from a device that left (stderr goes
// with stdout either way). The delay is read before the command is logged, so a test that
// sees the command knows its delay.
func (d *Device) runCommand(s *stream, cmd string, v2 bool) {
	defer s.close()
	delay := time.Duration(d.delay.Load())
	d.cmds.add(cmd)
	if err := sleep(s.ctx, delay); err != nil {
		return
	}
	out, status := d.run(s.ctx, cmd)
	if s.ctx.Err() != nil {
		return
	}
	if v2 {
		out = shellV2Frames(out, status)
	}
	if len(out) > 0 {
		_, _ = s.Write(out)
	}
}

// Shell protocol v2 packet ids (adb's shell_protocol.h).
const (
	shellStdout = 1
	shellExit   = 3
)

// shellV2Frames frames a command's output and exit status as shell protocol v2 packets.
func shellV2Frames(out []byte, status int) []byte {
	var b bytes.Buffer
	if len(out) > 0 {
		b.WriteByte(shellStdout)
		_ = binary.Write(&b, binary.LittleEndian, uint32(len(out)))
		b.Write(out)
	}
	b.Write([]byte{shellExit, 1, 0, 0, 0, byte(status)})
	return b.Bytes()
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
