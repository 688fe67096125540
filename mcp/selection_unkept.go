package mcp

import "fmt"

// A selection select_device could not store (the sessions' bucket full, NATS taking no writes)
// leaves the session without a default: release_device {} then finds no lease to give back,
// and must say why rather than suggest select_device again, which leased the device all the
// same. This gateway notes the device in the session it keeps; another gateway, or this one
// after a restart, only has the general refusal.

// selectionUnkept notes that session id's selection of serial was not stored ("": it was, or
// the device was given back).
func (s *sessions) selectionUnkept(id, serial string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls, ok := s.live[id]; ok {
		ls.unkept = serial
	}
}

// unkeptSelection is the device whose selection session id could not store, if any.
func (s *sessions) unkeptSelection(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls, ok := s.live[id]; ok {
		return ls.unkept
	}
	return ""
}

// unkeptLeaseRefusal is release_device's refusal without lease when the session's selection
// of serial could not be stored: its lease is held until released or expired.
func unkeptLeaseRefusal(serial string) string {
	return fmt.Sprintf("lease is required: this session's selection of %s could not be stored in NATS (select_device said "+
		"it could not be remembered), so release_device {} does not know its lease; pass lease (the handle select_device "+
		"returned) and serial %s, or the device stays held until its lease expires", serial, serial)
}
