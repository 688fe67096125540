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
//
// Whatever it records first of the device after such an entry, the loss's offline event goes
// before it. A node still connected sees the entry at once, and may record the device online
// before the gateway's offline event, written after the entry, lands: the device's events
// would end "online, offline" while it is online. The offline event is a function of the entry
// (broker.LostDeviceEvent), so the node's and the gateway's are one, kept once by the stream.
//
// A node may hear a loss's event before it sees the loss's entries (two subscriptions, no order
// between them). It revokes its leases then, and the scheduler records a leased device online
// with no entry of the loss known yet; that state is after the loss's offline event, which the
// gateway stored before it sent the loss's. The entry, seen next, is of the loss answered: the
// device is not recorded shown again, or its events would read offline, online, online.

// lostEventFresh is how old an offline entry of a loss may be (by its Updated, the gateway's
// clock) for the node to record its offline event. The gateway's lands within seconds of its
// write, or never (reapWait); past the stream's 2-minute deduplication window the node's would
// be a second one, so after a minute (a node cut off a while, back) the node leaves it to the
// gateway's, long since recorded. The minute also takes up a clock a little off the gateway's.
const lostEventFresh = time.Minute

// lostShown is what the mirror knows of the offline entries of losses; guarded by its mu.
type lostShown struct {
	pending map[string]broker.DeviceEntry // of each serial written offline and not shown since: the entry
	seen    map[string]time.Time          // the Updated of the last such entry of each serial
	// answered: each device's epoch when the node began answering its latest loss, before the
	// answer moved it on. stated: of those, the devices the scheduler recorded a state of
	// since, with no entry of the loss seen yet. An entry of such a device at most that epoch
	// is of the loss answered; a later loss's, or a verdict written over the answer, has the
	// answer's epoch or more.
	answered map[string]uint64
	stated   map[string]uint64
}

// answering notes that the node begins answering a loss (its devices' epochs before the
// answer), before it revokes its leases.
func (m *natsMirror) answering(epochs map[string]uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lostShown.answered, m.lostShown.stated = epochs, map[string]uint64{}
}

// statedAfterLoss notes a state of serial the scheduler records with no entry of a loss seen:
// if the node is answering one, it is the device's state after it; m.mu is held.
func (m *natsMirror) statedAfterLoss(serial string) {
	l := &m.lostShown
	if epoch, answering := l.answered[serial]; answering {
		if _, already := l.stated[serial]; !already {
			l.stated[serial] = epoch
		}
	}
}

// writtenOffline notes e, an entry a gateway wrote offline for a loss, of a device the node
// serves.
func (m *natsMirror) writtenOffline(e broker.DeviceEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := &m.lostShown
	if l.pending == nil {
		l.pending, l.seen = map[string]broker.DeviceEntry{}, map[string]time.Time{}
	}
	if at, seen := l.seen[e.Serial]; seen && at.Equal(e.Updated) {
		return // the same entry, seen again
	}
	l.seen[e.Serial] = e.Updated
	if epoch, stated := l.stated[e.Serial]; stated && e.Epoch <= epoch {
		delete(l.stated, e.Serial) // the device's state after this loss is recorded already
		return
	}
	l.pending[e.Serial] = e
}

// shownAgain queues the state event of e if the farm wrote its device offline for a loss since
// it was last shown, after the loss's offline event; m.mu is held. A device shown leased is
// left to the scheduler: the loss revokes every lease, and the node, shown its entry before it
// has done so, would record "leased" after the loss and "online" at the revoke.
func (m *natsMirror) shownAgain(e broker.DeviceEntry) {
	if e.State == broker.StateLeased || !m.lossFirst(e.Serial) {
		return
	}
	ev := broker.Event{V: broker.WireVersion, Kind: "device", Serial: e.Serial, Node: m.node, What: e.State,
		Reason: e.Reason, Epoch: e.Epoch, At: time.Now()}
	m.events = append(m.events, publication{subject: m.eventSubject(ev), v: ev})
}

// lossFirst queues the offline event of the loss entry of serial not shown since, if there is
// one, before the state the mirror records next of the device, and says whether there was;
// m.mu is held.
func (m *natsMirror) lossFirst(serial string) bool {
	lost, pending := m.lostShown.pending[serial]
	if !pending {
		return false
	}
	delete(m.lostShown.pending, serial)
	if time.Since(lost.Updated) < lostEventFresh {
		ev, id := broker.LostDeviceEvent(lost)
		m.events = append(m.events, publication{subject: m.eventSubject(ev), v: ev, id: id, first: true})
	}
	return true
}
