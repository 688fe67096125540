package broker

import (
	"crypto/sha256"
	"encoding/hex"
)

// AcquireProbeID is what a node asks a lease request's caller about (AcquireRequest.Probe), in
// the place of a task's id: the request's own id is a secret of its asker (it withdraws the
// request), and a probe goes on a progress subject, which other gateways may listen on, so the node asks by
// a hash that tells nothing of it. "" for a request without an id.
func AcquireProbeID(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("corral lease request probe\x00" + id))
	return "acq_" + hex.EncodeToString(sum[:10])
}
