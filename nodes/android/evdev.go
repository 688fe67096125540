package android

import (
	"encoding/binary"
	"strings"
)

// Linux input event types and codes (linux/input-event-codes.h) that the driver reads in
// `getevent -lp` and writes to event devices.
const (
	evSyn = 0x00
	evKey = 0x01
	evAbs = 0x03

	synReport = 0

	btnToolFinger = 0x145
	btnTouch      = 0x14a

	absMTSlot       = 0x2f
	absMTTouchMajor = 0x30
	absMTPositionX  = 0x35
	absMTPositionY  = 0x36
	absMTTrackingID = 0x39
	absMTPressure   = 0x3a
)

// absLabels are the ABS codes the driver needs, by the names `getevent -l` prints.
var absLabels = map[string]uint16{
	"ABS_MT_SLOT": absMTSlot, "ABS_MT_TOUCH_MAJOR": absMTTouchMajor, "ABS_MT_POSITION_X": absMTPositionX,
	"ABS_MT_POSITION_Y": absMTPositionY, "ABS_MT_TRACKING_ID": absMTTrackingID, "ABS_MT_PRESSURE": absMTPressure,
}

// keyLabels are the KEY codes the driver needs, by the names `getevent -l` prints. An older
// getevent without a name prints the code in hex, which parseGetevent reads too.
var keyLabels = map[string]uint16{
	"BTN_TOUCH": btnTouch, "BTN_TOOL_FINGER": btnToolFinger,
	"KEY_ESC": 1, "KEY_BACKSPACE": 14, "KEY_ENTER": 28, "KEY_HOME": 102, "KEY_MUTE": 113, "KEY_VOLUMEDOWN": 114,
	"KEY_VOLUMEUP": 115, "KEY_POWER": 116, "KEY_MENU": 139, "KEY_SLEEP": 142, "KEY_WAKEUP": 143, "KEY_BACK": 158,
	"KEY_NEXTSONG": 163, "KEY_PLAYPAUSE": 164, "KEY_PREVIOUSSONG": 165, "KEY_HOMEPAGE": 172, "KEY_CAMERA": 212,
	"KEY_SEARCH": 217, "KEY_APPSELECT": 580,
}

// keyScancodes are the Linux key codes that press an Android key on a phone's buttons, in the
// order tried: the codes of Android's Generic.kl (HOME is KEY_HOMEPAGE there; KEY_HOME is the
// phones' own layouts' HOME key). A key goes to the first event device that lists one of its
// codes; other keys are `input keyevent`.
var keyScancodes = map[string][]uint16{
	"KEYCODE_HOME": {172, 102}, "KEYCODE_BACK": {158}, "KEYCODE_APP_SWITCH": {580}, "KEYCODE_MENU": {139},
	"KEYCODE_POWER": {116}, "KEYCODE_VOLUME_UP": {115}, "KEYCODE_VOLUME_DOWN": {114}, "KEYCODE_VOLUME_MUTE": {113},
	"KEYCODE_ENTER": {28}, "KEYCODE_DEL": {14}, "KEYCODE_ESCAPE": {1}, "KEYCODE_CAMERA": {212},
	"KEYCODE_SEARCH": {217}, "KEYCODE_WAKEUP": {143}, "KEYCODE_SLEEP": {142}, "KEYCODE_MEDIA_PLAY_PAUSE": {164},
	"KEYCODE_MEDIA_NEXT": {163}, "KEYCODE_MEDIA_PREVIOUS": {165},
}

// inputEvent is a struct input_event without its time, which the kernel sets on write.
type inputEvent struct {
	typ, code uint16
	value     int32
}

// eventSize is the size of struct input_event for a device's userspace ABI
// (ro.product.cpu.abi): a struct timeval, then type, code and value. The timeval is two longs,
// so 24 bytes in all for 64-bit userspace and 16 for 32-bit. ok is false for an ABI it does
// not know.
func eventSize(abi string) (size int, ok bool) {
	switch abi = strings.TrimSpace(abi); {
	case abi == "arm64-v8a" || abi == "x86_64" || abi == "riscv64" || abi == "mips64":
		return 24, true
	case abi == "armeabi-v7a" || abi == "armeabi" || abi == "x86" || abi == "mips":
		return 16, true
	}
	return 0, false
}

// appendEvents encodes evs as size-byte input_event structs, little-endian (as every Android
// ABI is), with a zero time.
func appendEvents(buf []byte, size int, evs ...inputEvent) []byte {
	for _, e := range evs {
		start := len(buf)
		buf = append(buf, make([]byte, size)...)
		b := buf[start+size-8:]
		binary.LittleEndian.PutUint16(b[0:], e.typ)
		binary.LittleEndian.PutUint16(b[2:], e.code)
		binary.LittleEndian.PutUint32(b[4:], uint32(e.value))
	}
	return buf
}
