package adbsim

import (
	"time"
)

// maxSlots bounds the contact slots a device keeps, whatever its ABS_MT_SLOT range says.
const maxSlots = 16

// evdevState is what the kernel keeps of one event device between writes, and what Android's
// input reader makes of it: the multitouch slots (protocol B: ABS_MT_SLOT picks a slot,
// ABS_MT_TRACKING_ID ≥ 0 puts a contact in it and -1 takes it out, ABS_MT_POSITION_X/Y move it)
// and the keys that are down. Events the device does not report are dropped, as the kernel
// drops them; a SYN_REPORT completes what changed since the last one.
type evdevState struct {
	dev      *eventDevice
	slot     int
	slots    []slotState
	down     map[uint16]bool // keys down
	released []uint16        // keys released since the last SYN_REPORT
}

// slotState is one slot: its values as written, and its contact as of the last SYN_REPORT.
type slotState struct {
	id      int32 // -1: no contact
	at      panelXY
	contact *contact
}

// panelXY is a position in the panel's units.
type panelXY struct{ x, y int32 }

// contact is a finger on the panel.
type contact struct {
	id        int32
	from, at  panelXY
	down      time.Time
	firstMove time.Time // zero until it moves
}

// touch is a contact that ended: where it began and ended, and when it went down, first
// moved (zero if it never did) and lifted.
type touch struct {
	from, to            panelXY
	down, firstMove, up time.Time
}

func newEvdevState(dev *eventDevice) *evdevState {
	n := 1
	if a, ok := dev.axis(absMTSlot); ok && a.max >= 0 {
		n = int(min(a.max, maxSlots-1)) + 1
	}
	s := &evdevState{dev: dev, slots: make([]slotState, n), down: map[uint16]bool{}}
	for i := range s.slots {
		s.slots[i].id = -1
	}
	return s
}

// contacts is how many fingers are on the panel.
func (s *evdevState) contacts() int {
	n := 0
	for _, sl := range s.slots {
		if sl.contact != nil {
			n++
		}
	}
	return n
}

// feed takes one event written at now; on a SYN_REPORT it returns the touches that ended and
// the keys released since the last one.
func (s *evdevState) feed(ev inputEvent, now time.Time) (touches []touch, keys []uint16) {
	switch ev.typ {
	case evSyn:
		if ev.code == synReport {
			return s.sync(now)
		}
	case evKey:
		// BTN_TOUCH and the BTN_TOOL_* keys go with the contacts, which the slots track.
		if !s.dev.hasKey(ev.code) || ev.code >= 0x140 && ev.code <= 0x14f || ev.value == 2 {
			return nil, nil
		}
		if down := ev.value != 0; s.down[ev.code] != down {
			s.down[ev.code] = down
			if !down {
				s.released = append(s.released, ev.code)
			}
		}
	case evAbs:
		if _, ok := s.dev.axis(ev.code); !ok {
			return nil, nil
		}
		sl := &s.slots[s.slot]
		switch ev.code {
		case absMTSlot:
			if ev.value >= 0 && int(ev.value) < len(s.slots) {
				s.slot = int(ev.value)
			}
		case absMTTrackingID:
			sl.id = max(ev.value, -1)
		case absMTPositionX:
			sl.at.x = ev.value
		case absMTPositionY:
			sl.at.y = ev.value
		}
	}
	return nil, nil
}

// sync completes a report: contacts that lifted (or were replaced by a new tracking id) end,
// new ones begin, and those that moved remember when they first did.
func (s *evdevState) sync(now time.Time) (touches []touch, keys []uint16) {
	for i := range s.slots {
		sl := &s.slots[i]
		c := sl.contact
		if c != nil && sl.id != c.id {
			touches = append(touches, touch{from: c.from, to: c.at, down: c.down, firstMove: c.firstMove, up: now})
			sl.contact, c = nil, nil
		}
		switch {
		case sl.id >= 0 && c == nil:
			sl.contact = &contact{id: sl.id, from: sl.at, at: sl.at, down: now}
		case c != nil && sl.at != c.at:
			c.at = sl.at
			if c.firstMove.IsZero() {
				c.firstMove = now
			}
		}
	}
	keys, s.released = s.released, nil
	return touches, keys
}
