package adbsim

import (
	"encoding/binary"
	"strings"
)

// inputEvent is a struct input_event as written to an event device, without its time (the
// kernel ignores it on write).
type inputEvent struct {
	typ, code uint16
	value     int32
}

// eventSize is the size of struct input_event for the ABI the device reports: a struct
// timeval (two longs) then type, code and value: 24 bytes for 64-bit userspace, 16 for 32-bit.
func eventSize(abi string) int {
	if strings.Contains(abi, "64") {
		return 24
	}
	return 16
}

// decodeEvents reads the whole size-byte input_event structs at the start of b, little-endian,
// and says how many bytes they took; a partial struct at the end waits for the rest.
func decodeEvents(b []byte, size int) (evs []inputEvent, used int) {
	for ; len(b)-used >= size; used += size {
		e := b[used+size-8 : used+size]
		evs = append(evs, inputEvent{
			typ:   binary.LittleEndian.Uint16(e[0:]),
			code:  binary.LittleEndian.Uint16(e[2:]),
			value: int32(binary.LittleEndian.Uint32(e[4:])),
		})
	}
	return evs, used
}
