package iossim

import (
	"errors"
	"fmt"
)

// lockdownRequest is a decoded lockdown request: the fields any request uses, each read only
// when it has the right type.
type lockdownRequest struct {
	Request    string
	Key        string
	Domain     string
	Service    string
	HostID     string
	SystemBUID string
	Value      any
	HasValue   bool
	PairRecord map[string]any
	size       int // bytes on the wire, for SetValue's bound
}

var errLockdownRequest = errors.New("not a lockdown request")

// decodeLockdownRequest decodes one lockdown message's plist.
func decodeLockdownRequest(payload []byte) (lockdownRequest, error) {
	m, err := decodeDict(payload)
	if err != nil {
		return lockdownRequest{}, fmt.Errorf("%w: %w", errLockdownRequest, err)
	}
	req := lockdownRequest{
		Request:    dictString(m, "Request"),
		Key:        dictString(m, "Key"),
		Domain:     dictString(m, "Domain"),
		Service:    dictString(m, "Service"),
		HostID:     dictString(m, "HostID"),
		SystemBUID: dictString(m, "SystemBUID"),
		PairRecord: dictDict(m, "PairRecord"),
		size:       len(payload),
	}
	req.Value, req.HasValue = m["Value"]
	if req.Request == "" {
		return req, fmt.Errorf("%w: no Request key", errLockdownRequest)
	}
	return req, nil
}
