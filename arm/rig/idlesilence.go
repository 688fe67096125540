package rig

import (
	"context"
	"errors"

	"github.com/corral-farm/corral/arm/grbl"
)

// A controller that froze while the rig sat idle (kill -STOP, a hung board) left the rig
// online, and free, until a task found it silent or its link_timeout (a minute, maybe) took
// the rig offline: the node checks a healthy device's health only after a task. The rig
// watches the status reports its client asks for 8 times a second, and a controller that
// answers none makes it unhealthy at once, with the words a gesture's refusal has ("the
// controller stopped answering: no status report since …"), until it answers again.
//
// The patience is the gesture path's, silentAfter and then answerWait, counted in requests
// too: idleAsks status requests must go unanswered, so a loaded host whose poll loop asks late
// (its ticker drops the ticks it missed) waits longer rather than calling its own lateness
// the controller's silence. Silent within about 4 s on a host that keeps up.
const (
	idleSilence = silentAfter + answerWait
	idleAsks    = 24 // silentAfter's worth of requests at 8 a second
)

// watchSilence calls news when the controller is found silent (silenced, unless a gesture
// found it so first) and again when it answers, until the controller's link ends.
func (d *Driver) watchSilence(news func()) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-d.arm.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		err := d.arm.Ignoring(ctx, idleSilence, idleAsks)
		if !errors.Is(err, grbl.ErrSilent) {
			return // the link ended: the platform takes the rig off its node
		}
		if d.mute.Load() == nil {
			d.silenced(err)
		}
		news()
		if d.arm.Answering(ctx, silentAfter) != nil {
			return
		}
		news()
	}
}
