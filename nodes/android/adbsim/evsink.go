package adbsim

import (
	"context"
	"math"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// longPress is how long a touch must rest to be a long press: Android's default timeout.
const longPress = 500 * time.Millisecond

// inputState is the kernel's state of each event device, shared by whatever writes to it.
type inputState struct {
	apply   sync.Mutex // held while events are applied, so the phone sees them in order
	mu      sync.Mutex // guards devs and writers
	devs    map[string]*evdevState
	writers map[*stream]struct{} // streams running `cat > /dev/input/…`
}

// eventWriterPath says whether cmd is `cat > /dev/input/…`, the command that writes the
// stream's bytes to an event device, and which device.
func eventWriterPath(cmd string) (string, bool) {
	list, err := parseLine(cmd)
	if err != nil || len(list) != 1 || len(list[0].cmds) != 1 || list[0].background {
		return "", false
	}
	c := list[0].cmds[0]
	if len(c.args) != 1 || path.Base(c.args[0]) != "cat" || len(c.redirs) != 1 {
		return "", false
	}
	r := c.redirs[0]
	if r.fd != 1 || (r.op != ">" && r.op != ">>") || !strings.HasPrefix(r.target, "/dev/input/") {
		return "", false
	}
	return r.target, true
}

// serveEvents runs `cat > /dev/input/eventN` on a stream, as adbd's exec: (or shell:) service
// would: cat copies what the host writes to the device, and the kernel reads it as input
// events (decodeEvents, evdevState), which land on the phone as taps, swipes and key presses.
// A shell that may not open the device says so and the stream ends.
func (d *Device) serveEvents(s *stream, cmd, target string) {
	defer s.close()
	delay := time.Duration(d.delay.Load())
	d.cmds.add(cmd)
	if err := sleep(s.ctx, delay); err != nil {
		return
	}
	dev, err := d.eventDevice(target)
	if err != nil {
		_, _ = s.Write([]byte(shPrefix + "can't create " + target + ": " + err.Error() + "\n"))
		return
	}
	d.input.mu.Lock()
	d.input.writers[s] = struct{}{}
	d.input.mu.Unlock()
	defer func() {
		d.input.mu.Lock()
		delete(d.input.writers, s)
		d.input.mu.Unlock()
	}()
	size := eventSize(d.abi)
	var pending []byte
	chunk := make([]byte, 4096)
	for {
		n, err := s.Read(chunk)
		pending = append(pending, chunk[:n]...)
		evs, used := decodeEvents(pending, size)
		pending = pending[:copy(pending, pending[used:])]
		d.inject(s.ctx, dev, evs)
		if err != nil {
			return
		}
	}
}

// inject applies events written to dev: the touches and key presses they complete land on the
// phone, through its own methods (so its overlap detection sees them as any other operation).
func (d *Device) inject(ctx context.Context, dev *eventDevice, evs []inputEvent) {
	if len(evs) == 0 {
		return
	}
	d.input.apply.Lock()
	defer d.input.apply.Unlock()
	d.input.mu.Lock()
	st := d.input.devs[dev.path]
	if st == nil {
		st = newEvdevState(dev)
		d.input.devs[dev.path] = st
	}
	d.input.mu.Unlock()
	for _, ev := range evs {
		d.input.mu.Lock()
		touches, keys := st.feed(ev, time.Now())
		d.input.mu.Unlock()
		for _, t := range touches {
			d.touchPhone(ctx, dev, t)
		}
		for _, code := range keys {
			if name := buttons[code]; phoneKeys[name] {
				_ = d.phone.PressKey(ctx, name)
			}
		}
	}
}

// touchPhone hands the phone a touch that ended: one that never moved is a tap (a long press if it
// rested longPress or more), one that moved is a swipe (a drag if it rested longPress or more
// before moving). Taps are recorded with their times (Taps).
func (d *Device) touchPhone(ctx context.Context, dev *eventDevice, t touch) {
	from, to := d.panelToPhone(dev, t.from), d.panelToPhone(dev, t.to)
	if t.firstMove.IsZero() {
		hold := t.up.Sub(t.down)
		if hold < longPress {
			hold = 0
		}
		d.recordTap(Tap{At: t.down, Up: t.up, Point: from})
		_ = d.phone.Tap(ctx, from, hold) // a touch off the screen is ignored, as on a phone
		return
	}
	start, hold := t.down, time.Duration(0)
	if rest := t.firstMove.Sub(t.down); rest >= longPress {
		start, hold = t.firstMove, rest
	}
	_ = d.phone.Swipe(ctx, from, to, t.up.Sub(start), hold)
}

// panelToPhone maps a panel position to the phone pixel under it: the panel covers the
// phone's screen in its natural orientation, whatever the display's size override or rotation.
func (d *Device) panelToPhone(dev *eventDevice, p panelXY) device.Point {
	ax, _ := dev.axis(absMTPositionX)
	ay, _ := dev.axis(absMTPositionY)
	scale := func(v int32, a absAxis, pixels int) int {
		span := float64(a.max) - float64(a.min) + 1
		return int(math.Floor((float64(v) - float64(a.min) + 0.5) * float64(pixels) / span))
	}
	disp := d.currentDisplay()
	return device.Point{X: scale(p.x, ax, disp.physW), Y: scale(p.y, ay, disp.physH)}
}

// TouchesDown is how many fingers are on the touchscreen now, as the events written to it say.
func (d *Device) TouchesDown() int {
	d.input.mu.Lock()
	defer d.input.mu.Unlock()
	n := 0
	for _, st := range d.input.devs {
		n += st.contacts()
	}
	return n
}

// InputWriters is how many streams are writing to event devices now.
func (d *Device) InputWriters() int {
	d.input.mu.Lock()
	defer d.input.mu.Unlock()
	return len(d.input.writers)
}

// KillInputWriters ends every stream writing to an event device, as `pkill cat` on a phone
// would, and says how many it ended. A host sees its stream close.
func (d *Device) KillInputWriters() int {
	d.input.mu.Lock()
	ws := make([]*stream, 0, len(d.input.writers))
	for s := range d.input.writers {
		ws = append(ws, s)
	}
	d.input.mu.Unlock()
	for _, s := range ws {
		s.close()
	}
	return len(ws)
}
