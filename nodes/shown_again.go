package nodes

import (
	"time"

	"github.com/corral-farm/corral/broker"
)

// A gateway that declares the node lost writes its devices offline and records each one's
// offline event. The node, answering, shows them again in the registry; the scheduler records
// a device's state only when it changes in the node, which a loss does not. So the stream's
// last word on a device back would stay "offline". The mirror records the state of each device
// the farm wrote offline when it shows it again: once per offline entry of a loss the node saw
// (it may see one twice: from its watch and from its read after a reconnection), whether the
// scheduler's answer (Device) or a reshow shows it first, unless the scheduler recorded a state
// of the device meanwhile (a lease the loss revoked: online).

// lostShown is what the mirror knows of the offline entries of losses; guarded by its mu.
type lostShown struct {
	pending map[string]bool      // serials written offline, not shown since
	seen    map[string]time.Time // the Updated of the last such entry of each serial
}

// writtenOffline notes e, an entry a gateway wrote offline for a loss, of a device the node
// serves.
func (m *natsMirror) writtenOffline(e broker.DeviceEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := &m.lostShown
	if l.pending == nil {
		l.pending, l.seen = map[string]bool{}, map[string]time.Time{}
	}
	if at, seen := l.seen[e.Serial]; seen && at.Equal(e.Updated) {
		return // the same entry, seen again
	}
	l.seen[e.Serial], l.pending[e.Serial] = e.Updated, true
}

// shownAgain queues the state event of e if the farm wrote its device offline for a loss since
// it was last shown; m.mu is held.
func (m *natsMirror) shownAgain(e broker.DeviceEntry) {
	if !m.lostShown.pending[e.Serial] {
		return
	}
	delete(m.lostShown.pending, e.Serial)
	ev := broker.Event{V: broker.WireVersion, Kind: "device", Serial: e.Serial, Node: m.node, What: e.State,
		Reason: e.Reason, Epoch: e.Epoch, At: time.Now()}
	m.events = append(m.events, publication{subject: m.eventSubject(ev), v: ev})
}

// stateTold notes that the scheduler records serial's state itself.
func (m *natsMirror) stateTold(serial string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.lostShown.pending, serial)
}
