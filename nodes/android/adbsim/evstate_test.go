package adbsim

import (
	"slices"
	"testing"
	"time"
)

// The kernel's view of the writes: protocol B contacts become touches when they lift, keys
// presses when they are released, and events the device does not report are dropped.
func TestEvdevState(t *testing.T) {
	d := &Device{panelMax: [2]int32{4095, 4095}}
	devs := d.eventDevices()
	ts, keys, accel := &devs[0], &devs[1], &devs[3]
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	type step struct {
		at  int // ms
		evs [][3]int32
	}
	down := func(id, x, y int32) [][3]int32 {
		return [][3]int32{{evAbs, absMTSlot, 0}, {evAbs, absMTTrackingID, id}, {evKey, btnTouch, 1}, {evAbs, absMTPositionX, x}, {evAbs, absMTPositionY, y}, {evSyn, synReport, 0}}
	}
	move := func(x, y int32) [][3]int32 {
		return [][3]int32{{evAbs, absMTPositionX, x}, {evAbs, absMTPositionY, y}, {evSyn, synReport, 0}}
	}
	up := [][3]int32{{evAbs, absMTTrackingID, -1}, {evKey, btnTouch, 0}, {evSyn, synReport, 0}}
	run := func(dev *eventDevice, steps ...step) (touches []touch, pressed []uint16, st *evdevState) {
		st = newEvdevState(dev)
		for _, s := range steps {
			for _, e := range s.evs {
				tt, kk := st.feed(inputEvent{uint16(e[0]), uint16(e[1]), e[2]}, ms(s.at))
				touches, pressed = append(touches, tt...), append(pressed, kk...)
			}
		}
		return touches, pressed, st
	}

	got, _, st := run(ts, step{0, down(1, 100, 200)}, step{50, up})
	if want := []touch{{from: panelXY{100, 200}, to: panelXY{100, 200}, down: ms(0), up: ms(50)}}; !slices.Equal(got, want) || st.contacts() != 0 {
		t.Errorf("tap: %+v, want %+v", got, want)
	}
	got, _, _ = run(ts, step{0, down(1, 100, 200)}, step{600, move(100, 300)}, step{700, move(100, 400)}, step{710, up})
	if want := []touch{{from: panelXY{100, 200}, to: panelXY{100, 400}, down: ms(0), firstMove: ms(600), up: ms(710)}}; !slices.Equal(got, want) {
		t.Errorf("drag: %+v, want %+v", got, want)
	}
	// A new tracking id in the slot ends the contact there and begins another.
	got, _, st = run(ts, step{0, down(1, 1, 1)}, step{10, down(2, 5, 5)})
	if len(got) != 1 || got[0].from != (panelXY{1, 1}) || st.contacts() != 1 {
		t.Errorf("replaced contact: %+v, %d down", got, st.contacts())
	}
	// A second finger in slot 1 is its own contact.
	two := []step{{0, down(1, 1, 1)}, {5, [][3]int32{{evAbs, absMTSlot, 1}, {evAbs, absMTTrackingID, 2}, {evAbs, absMTPositionX, 9}, {evAbs, absMTPositionY, 9}, {evSyn, synReport, 0}}}}
	if _, _, st = run(ts, two...); st.contacts() != 2 {
		t.Errorf("two fingers: %d down", st.contacts())
	}
	// Out-of-range slots are ignored; nothing happens before a SYN_REPORT.
	if got, _, st = run(ts, step{0, [][3]int32{{evAbs, absMTSlot, 99}, {evAbs, absMTTrackingID, 3}, {evAbs, absMTPositionX, 1}}}); len(got) != 0 || st.contacts() != 0 {
		t.Errorf("unsynced: %+v, %d down", got, st.contacts())
	}

	// Keys: a press is a release after a down; repeats, unchanged values and keys the device
	// lacks are dropped.
	press := func(code int32) [][3]int32 {
		return [][3]int32{{evKey, code, 1}, {evSyn, synReport, 0}, {evKey, code, 2}, {evKey, code, 0}, {evKey, code, 0}, {evSyn, synReport, 0}}
	}
	_, pressed, _ := run(keys, step{0, press(116)}, step{1, press(102)}, step{2, press(114)})
	if !slices.Equal(pressed, []uint16{116, 114}) {
		t.Errorf("gpio-keys pressed %v, want POWER and VOLUME_DOWN (not HOME, which it lacks)", pressed)
	}
	if got, _, _ := run(accel, step{0, down(1, 1, 1)}, step{1, up}); len(got) != 0 {
		t.Errorf("the accelerometer took touches: %+v", got)
	}
}
