package android

// noteReason remembers what the reason just given to the device of e, a Removed event, rests
// on, so that it can be brought up to date: the adb server being down (gone), or the state the
// server lists the device in, "" for none (offline). The caller holds a.mu.
func (a *attacher) noteReason(e Event) {
	if e.Err != nil {
		delete(a.offline, e.Serial)
		if a.gone == nil {
			a.gone = map[string]bool{}
		}
		a.gone[e.Serial] = true
		return
	}
	if a.offline == nil {
		a.offline = map[string]string{}
	}
	a.offline[e.Serial] = e.State
}

// unlisted gives a device removed while the adb server listed it in another state, and that
// the server no longer lists (e is its Gone event), the reason that is true now: no longer
// listed, or the server down. Without this, "adb lists it offline" would stay after `adb
// reconnect offline` or `adb disconnect` took it off the list.
func (a *attacher) unlisted(e Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if state, ok := a.offline[e.Serial]; !ok || state == "" && e.Err == nil || a.live[e.Serial] != nil {
		return
	}
	removed := Event{Kind: Removed, Serial: e.Serial, Err: e.Err}
	a.reg.RemoveDevice(e.Serial, removedReason(removed))
	a.noteReason(removed)
	a.log.Debug("android device no longer listed by the adb server", a.serialAttrs(e.Serial)...)
}

// restate gives a device removed earlier the state the adb server lists it in now (e is its
// Unusable event) as its reason: offline, then unauthorized, say, or listed again after it had
// left the list.
func (a *attacher) restate(e Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if state, ok := a.offline[e.Serial]; !ok || state == e.State || a.live[e.Serial] != nil {
		return
	}
	removed := Event{Kind: Removed, Serial: e.Serial, State: e.State}
	a.reg.RemoveDevice(e.Serial, removedReason(removed))
	a.noteReason(removed)
}
