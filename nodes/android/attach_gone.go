package android

import (
	"context"
	"time"
)

// recheckGone gives the devices removed while the adb server did not answer the reason that
// is true now that it answers again: "device disconnected" for one it no longer lists (a
// restarted server forgets what adb connect gave it), or the state it lists one in and what
// to do. One it lists ready keeps its reason until its Added event brings it back. Without
// this, their reason would still say the server does not answer.
func (a *attacher) recheckGone(ctx context.Context) {
	a.mu.Lock()
	n := len(a.gone)
	a.mu.Unlock()
	if n == 0 {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	states, err := a.states(qctx)
	cancel()
	if err != nil {
		return // down again (Watch reports it, and the next ServerUp looks again) or slow
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for serial := range a.gone {
		state := states[serial]
		if state == "device" || a.live[serial] != nil {
			continue // on its way back
		}
		delete(a.gone, serial)
		e := Event{Kind: Removed, Serial: serial, State: state}
		a.reg.RemoveDevice(serial, removedReason(e))
		a.noteReason(e)
		a.log.Debug("android device still offline now that the adb server answers", append(a.serialAttrs(serial), "state", state)...)
	}
}
