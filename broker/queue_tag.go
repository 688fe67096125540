package broker

import (
	"crypto/sha256"
	"encoding/hex"
)

// MaxQueueShown bounds DeviceEntry.Queue: a caller further back is told no place, only that it
// waits (the registry entry stays small however long the queue).
const MaxQueueShown = 50

// RequestTag is how a lease request shows in a registry entry's Queue: its id is a secret of
// its asker (it withdraws the request), so the entry carries a hash that tells nothing of it
// and that the asker, knowing the id, finds its place by. "" for a request without an id.
func RequestTag(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("corral lease request\x00" + id))
	return "acq:" + hex.EncodeToString(sum[:8])
}

// QueuePlace is the 1-based place of id in a registry entry's Queue, 0 when it is not listed
// (not waiting, behind MaxQueueShown, or the registry has not caught up).
func QueuePlace(d DeviceEntry, id string) int {
	if id == "" {
		return 0
	}
	for i, q := range d.Queue {
		if q == id {
			return i + 1
		}
	}
	return 0
}
