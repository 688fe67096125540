package adbsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/sim"
)

// shPrefix starts the shell's own messages, as on a phone.
const shPrefix = "/system/bin/sh: "

// call is one command of a pipeline: its arguments, what the previous command wrote, and
// where its output and errors go (the same buffer unless redirected: the shell: service merges
// them).
type call struct {
	ctx   context.Context
	args  []string // args[0] is the command name
	stdin []byte
	out   *bytes.Buffer
	errw  *bytes.Buffer
}

func (c *call) printf(format string, a ...any) { fmt.Fprintf(c.out, format, a...) }
func (c *call) errorf(format string, a ...any) { fmt.Fprintf(c.errw, format, a...) }

// handler runs one command and returns its exit status.
type handler func(d *Device, c *call) int

// handlers maps command names to what runs them.
var handlers = map[string]handler{
	"input":       cmdInput,
	"am":          cmdAm,
	"screencap":   cmdScreencap,
	"uiautomator": cmdUIAutomator,
	"wm":          cmdWm,
	"dumpsys":     cmdDumpsys,
	"pm":          cmdPm,
	"monkey":      cmdMonkey,
	"getprop":     cmdGetprop,
	"ime":         cmdIme,
	"settings":    cmdSettings,
	"rm":          cmdRm,
	"cat":         cmdCat,
	"echo":        cmdEcho,
	"grep":        cmdGrep,
	"sleep":       cmdSleep,
	"getevent":    cmdGetevent,
	"test":        cmdTest,
	"true":        func(*Device, *call) int { return 0 },
	"false":       func(*Device, *call) int { return 1 },
}

// run interprets a command line and returns everything it wrote. Background jobs (&) run
// alongside the rest; `wait`, and the end of the line, wait for them (adb's shell stream stays
// open while they hold its output) and add what they wrote.
func (d *Device) run(ctx context.Context, line string) (output []byte, status int) {
	var out bytes.Buffer
	list, err := parseLine(line)
	if err != nil {
		out.WriteString(shPrefix + err.Error() + "\n")
		return out.Bytes(), 2 // sh's status for a syntax error
	}
	var jobs backgroundJobs
	for _, p := range list {
		if ctx.Err() != nil {
			break
		}
		if (p.after == "&&" && status != 0) || (p.after == "||" && status == 0) {
			continue
		}
		switch {
		case p.background:
			jobs.start(func(w *bytes.Buffer) { d.runPipeline(ctx, p.cmds, w) })
			status = 0
		case len(p.cmds) == 1 && len(p.cmds[0].args) == 1 && p.cmds[0].args[0] == "wait":
			jobs.wait(&out)
			status = 0
		default:
			status = d.runPipeline(ctx, p.cmds, &out)
		}
	}
	jobs.wait(&out)
	return out.Bytes(), status
}

// backgroundJobs are the pipelines a command line started with &.
type backgroundJobs struct {
	wg   sync.WaitGroup
	outs []*bytes.Buffer // each job's output, in start order
}

func (j *backgroundJobs) start(run func(w *bytes.Buffer)) {
	w := &bytes.Buffer{}
	j.outs = append(j.outs, w)
	j.wg.Go(func() { run(w) })
}

// wait waits for every job started so far and adds their output to out.
func (j *backgroundJobs) wait(out *bytes.Buffer) {
	j.wg.Wait()
	for _, w := range j.outs {
		out.Write(w.Bytes())
	}
	j.outs = nil
}

// runPipeline runs commands one after the other, each reading what the previous one wrote.
func (d *Device) runPipeline(ctx context.Context, cmds []command, out *bytes.Buffer) int {
	var stdin []byte
	status := 0
	for i, cmd := range cmds {
		pipe := out
		if i < len(cmds)-1 {
			pipe = &bytes.Buffer{}
		}
		status = d.runOne(&call{ctx: ctx, args: cmd.args, stdin: stdin, out: pipe, errw: out}, cmd.redirs)
		stdin = pipe.Bytes()
	}
	return status
}

// runOne applies the redirections and runs the command.
func (d *Device) runOne(c *call, redirs []redir) int {
	var files []func() // writes of output redirected to files, after the command
	for _, r := range redirs {
		target := &c.out
		if r.fd == 2 {
			target = &c.errw
		}
		switch {
		case r.fd > 2:
			continue // no such descriptors here; nothing uses them
		case r.op == ">&" || r.op == "<&":
			switch r.target {
			case "1":
				*target = c.out
			case "2":
				*target = c.errw
			}
		case r.fd == 0:
			c.stdin = nil
			if r.target == "/dev/null" {
				continue
			}
			f, ok := d.files.get(r.target)
			if !ok {
				c.errorf("%scan't open %s: No such file or directory\n", shPrefix, r.target)
				return 1
			}
			c.stdin = f.Data
		default:
			buf := &bytes.Buffer{}
			*target = buf
			if r.target == "/dev/null" {
				continue
			}
			if strings.HasPrefix(r.target, "/dev/input/") {
				dev, err := d.eventDevice(r.target)
				if err != nil {
					c.errorf("%scan't create %s: %v\n", shPrefix, r.target, err)
					return 1
				}
				files = append(files, func() { // what the command wrote, read as input events
					evs, _ := decodeEvents(buf.Bytes(), eventSize(d.abi))
					d.inject(c.ctx, dev, evs)
				})
				continue
			}
			path, appendTo := r.target, r.op == ">>"
			files = append(files, func() {
				data := buf.Bytes()
				if old, ok := d.files.get(path); ok && appendTo {
					data = append(old.Data[:len(old.Data):len(old.Data)], data...)
				}
				if err := d.files.put(cleanPath(path), File{Data: data, Mode: modeFile | 0o660, MTime: time.Now()}); err != nil {
					c.errorf("%scan't create %s: %v\n", shPrefix, path, err)
				}
			})
		}
	}
	status := d.dispatch(c)
	for _, f := range files {
		f()
	}
	return status
}

func (d *Device) dispatch(c *call) int {
	name := c.args[0]
	if dir, base := path.Split(name); dir == "/system/bin/" || dir == "/system/xbin/" {
		name = base
	}
	h, ok := handlers[name]
	if !ok {
		c.errorf("%s%s: not found\n", shPrefix, c.args[0])
		return 127
	}
	return h(d, c)
}

// phoneErr reports a phone error as Android would: input that a phone ignores (off the screen,
// no focused field, an unknown key) is silent; anything else, such as a fault a test injected,
// is printed.
func phoneErr(c *call, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, sim.ErrOutOfScreen), errors.Is(err, sim.ErrNoFocus), errors.Is(err, sim.ErrBadInput),
		errors.Is(err, sim.ErrUnknownKey):
		return 0
	case c.ctx.Err() != nil:
		return 130
	}
	c.errorf("Error: %v\n", err)
	return 1
}
