package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corral-farm/corral/arm/twin"
)

// simArmFaults are the faults `corral sim arm` plays on its twin, so that a user can rehearse
// what docs/arm.md describes: a frozen controller, a pulled cable, a limit switch tripped, a
// camera without frames. Controller faults count the lines the controller received on its TCP
// port (status polls are no lines), so they strike at the same step of a run every time. Not
// on its pty: that stream is the simulator's own (no listener to wrap), and a drop replaces the
// pty under a new path, which no rigs file names (docs/arm.md says so).
type simArmFaults struct {
	freezeAfter int           // the controller answers that many lines, then nothing
	freezeFor   time.Duration // for that long (0: for ever)
	dropAfter   int           // closes its connections when the line after that many arrives
	alarmAfter  int           // raises alarm when the line after that many arrives
	alarm       int           // the alarm's code
	camAfter    int           // the camera stalls once it sent that many frames
	camFor      time.Duration // for that long (0: for ever)
	// given says whether a flag was given (command line, environment or --config file).
	given func(name string) bool
}

// simArmFaultFlags registers the fault flags on f.
func simArmFaultFlags(f *flags) *simArmFaults {
	o := &simArmFaults{given: func(name string) bool {
		found := false
		f.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
		return found
	}}
	f.IntVar(&o.freezeAfter, "freeze-after", 0, "the controller answers N lines on its TCP port, then nothing (frozen, as kill -STOP leaves it; 0: never)")
	f.DurationVar(&o.freezeFor, "freeze-for", 0, "how long --freeze-after's freeze lasts (0: for ever)")
	f.IntVar(&o.dropAfter, "drop-after", 0, "the controller answers N lines on its TCP port, then closes its connections, as a pulled cable (once; it takes new ones; 0: never)")
	f.IntVar(&o.alarmAfter, "alarm-after", 0, "the controller answers N lines on its TCP port, then raises --alarm, as a limit switch tripped (once; 0: never)")
	f.IntVar(&o.alarm, "alarm", 1, "the alarm --alarm-after raises: 1 hard limit, 2 soft limit, 3 reset while in motion, ... (GRBL's codes 1-10)")
	f.IntVar(&o.camAfter, "camera-stall-after", 0, "the camera sends N frames, then none, as a camera app hung (the twin sends 5 a second at most; 0: never)")
	f.DurationVar(&o.camFor, "camera-stall-for", 0, "how long --camera-stall-after's stall lasts (0: for ever)")
	return o
}

// check refuses values that mean nothing.
func (o *simArmFaults) check() error {
	var errs []error
	for _, c := range []struct {
		name string
		n    int
		what string
	}{{"--freeze-after", o.freezeAfter, "lines"}, {"--drop-after", o.dropAfter, "lines"}, {"--alarm-after", o.alarmAfter, "lines"}, {"--camera-stall-after", o.camAfter, "frames"}} {
		if c.n < 0 {
			errs = append(errs, badValue(fmt.Errorf("%s %d: give a number of %s, 1 or more (0: never)", c.name, c.n, c.what)))
		}
	}
	if o.alarm < 1 || o.alarm > 10 {
		errs = append(errs, badValue(fmt.Errorf("--alarm %d: GRBL's alarms are 1 to 10 (1 hard limit, 2 soft limit)", o.alarm)))
	}
	for _, c := range []struct {
		name string
		d    time.Duration
	}{{"--freeze-for", o.freezeFor}, {"--camera-stall-for", o.camFor}} {
		if c.d < 0 {
			errs = append(errs, badValue(fmt.Errorf("%s %s: give a duration of 0 or more, e.g. 30s", c.name, c.d)))
		}
	}
	// A fault's kind or length alone strikes nothing: it was accepted silently.
	for _, c := range []struct {
		name, count string
		n           int
	}{{"alarm", "alarm-after", o.alarmAfter}, {"freeze-for", "freeze-after", o.freezeAfter}, {"camera-stall-for", "camera-stall-after", o.camAfter}} {
		if o.given != nil && o.given(c.name) && c.n == 0 {
			errs = append(errs, badValue(fmt.Errorf("--%s does nothing without --%s N: give N too, the count after which the fault strikes", c.name, c.count)))
		}
	}
	return errors.Join(errs...)
}

// forever stands for a fault that lasts until the twin stops.
const forever = 100 * 365 * 24 * time.Hour

// listener wraps the controller's TCP listener to count the lines it receives and strike the
// faults at their count (the count is logged at debug without faults too, to choose N).
func (o *simArmFaults) listener(ln net.Listener, tw *twin.Twin, log *slog.Logger) net.Listener {
	return &countingListener{Listener: ln, strike: o.striker(tw, log)}
}

// striker is what runs at each line received: the faults whose count the line passes strike,
// each once. It runs before the line reaches the controller, so the line after N is the
// first one a fault meets; drop says to end the connection it came on, unread.
func (o *simArmFaults) striker(tw *twin.Twin, log *slog.Logger) func(lines int64) (drop bool) {
	var freeze, dropped, alarm sync.Once
	return func(lines int64) (drop bool) {
		log.Debug("controller lines received", "lines", lines) // to choose N for a rehearsal
		if o.freezeAfter > 0 && lines > int64(o.freezeAfter) {
			freeze.Do(func() {
				d := o.freezeFor
				if d == 0 {
					d = forever
				}
				log.Warn("fault: the controller freezes", "after_lines", o.freezeAfter, "for", o.freezeFor)
				tw.GRBL.Stall(d)
			})
		}
		if o.alarmAfter > 0 && lines > int64(o.alarmAfter) {
			alarm.Do(func() {
				log.Warn("fault: the controller raises an alarm", "after_lines", o.alarmAfter, "alarm", o.alarm)
				tw.GRBL.InjectAlarm(o.alarm)
			})
		}
		if o.dropAfter > 0 && lines > int64(o.dropAfter) {
			dropped.Do(func() {
				log.Warn("fault: the controller's connections drop", "after_lines", o.dropAfter)
				drop = true
				go tw.GRBL.Disconnect() // the others; not from within the read of this one
			})
		}
		return drop
	}
}

// countingListener counts the lines read on all its connections.
type countingListener struct {
	net.Listener
	lines  atomic.Int64
	strike func(lines int64) (drop bool)
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

type countingConn struct {
	net.Conn
	l *countingListener
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if k := bytes.Count(p[:n], []byte{'\n'}); k > 0 && c.l.strike(c.l.lines.Add(int64(k))) {
		_ = c.Conn.Close()
		return 0, io.EOF // the line is lost with the link
	}
	return n, err
}

// camera wraps the camera's MJPEG handler so that its streams send nothing once it has sent
// camAfter frames (over all its streams), new streams included (a client reopens a stalled
// one), as a camera app hung or a USB camera stuck, for camFor; then they go on.
func (o *simArmFaults) camera(h http.Handler, log *slog.Logger) http.Handler {
	if o.camAfter == 0 {
		return h
	}
	st := &camStall{after: int64(o.camAfter), lasts: o.camFor, log: log}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&stallWriter{ResponseWriter: w, r: r, st: st}, r)
	})
}

// camStall counts the frames the camera sent and says when it stalls.
type camStall struct {
	after int64
	lasts time.Duration // 0: for ever
	log   *slog.Logger

	mu     sync.Mutex
	frames int64
	until  time.Time // the stall's end, once it began
}

// sent counts one frame sent; the stall begins at the after-th.
func (c *camStall) sent() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frames++; c.frames != c.after {
		return
	}
	lasts := c.lasts
	if lasts == 0 {
		lasts = forever
	}
	c.until = time.Now().Add(lasts)
	c.log.Warn("fault: the camera stalls", "after_frames", c.after, "for", c.lasts)
}

// left is how long the stall still lasts, 0 outside it.
func (c *camStall) left() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(time.Until(c.until), 0)
}

// stallWriter holds every write while the camera stalls, and counts its frames (the MJPEG
// handler flushes each).
type stallWriter struct {
	http.ResponseWriter
	r  *http.Request
	st *camStall
}

func (w *stallWriter) Write(p []byte) (int, error) {
	for left := w.st.left(); left > 0; left = w.st.left() {
		t := time.NewTimer(min(left, time.Second))
		select {
		case <-w.r.Context().Done():
			t.Stop()
			return 0, w.r.Context().Err()
		case <-t.C:
		}
	}
	return w.ResponseWriter.Write(p)
}

// FlushError flushes a frame out (http.ResponseController calls it) and counts it.
func (w *stallWriter) FlushError() error {
	if err := http.NewResponseController(w.ResponseWriter).Flush(); err != nil {
		return err
	}
	w.st.sent()
	return nil
}
