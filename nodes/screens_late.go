package nodes

import (
	"context"
	"sync"
	"time"

	"github.com/corral-farm/corral/actors"
)

// Late frames: a look whose frame comes after its loop stopped waiting still has a picture.
//
// Under load (2 cores, load ~22, -race) a look at a simulated phone takes ~0.5 s of CPU, and
// the looks at six watched phones all outlasted their timeout and the grace period: the
// device actor answered each as slow, the frame came after, and was thrown away; the console
// showed no screen at all. A frame that comes late is published unless a newer look's frame
// was published meanwhile. The device's health is judged as before (actors/capture.go).

// lateFrame is a frame that came after its look was answered without it.
type lateFrame struct {
	look  uint64 // the loop's look it came from: a later look's frame is newer
	frame actors.ScreenFrame
	at    time.Time // when it came
}

// lateFrames holds a loop's newest late frame until the loop publishes it.
type lateFrames struct {
	mu    sync.Mutex
	held  *lateFrame
	ready chan struct{} // told when a frame is held; capacity 1
}

func newLateFrames() *lateFrames { return &lateFrames{ready: make(chan struct{}, 1)} }

// put keeps f unless a newer look's frame is held. It never blocks: the device's actor calls
// it.
func (l *lateFrames) put(f lateFrame) {
	l.mu.Lock()
	if l.held == nil || f.look > l.held.look {
		l.held = &f
	}
	l.mu.Unlock()
	select {
	case l.ready <- struct{}{}:
	default:
	}
}

// take returns the frame held, if any, and lets it go.
func (l *lateFrames) take() (lateFrame, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		return lateFrame{}, false
	}
	f := *l.held
	l.held = nil
	return f, true
}

// awaitCapture sends a capture with send and waits for its answer until ctx ends. A frame
// answered after that goes to late, as one the actor hands over after answering slow does.
func awaitCapture(ctx context.Context, late func(actors.ScreenFrame), send func(reply func(actors.ScreenFrame, error))) (actors.ScreenFrame, error) {
	type answer struct {
		frame actors.ScreenFrame
		err   error
	}
	var (
		mu   sync.Mutex
		gone bool // the waiter stopped waiting
	)
	ch := make(chan answer, 1)
	send(func(f actors.ScreenFrame, err error) {
		mu.Lock()
		waited := !gone
		if waited {
			ch <- answer{f, err}
		}
		mu.Unlock()
		if !waited && err == nil {
			late(f)
		}
	})
	select {
	case a := <-ch:
		return a.frame, a.err
	case <-ctx.Done():
	}
	mu.Lock()
	gone = true
	mu.Unlock()
	select {
	case a := <-ch: // answered as the wait ended
		return a.frame, a.err
	default:
		return actors.ScreenFrame{}, ctx.Err()
	}
}
