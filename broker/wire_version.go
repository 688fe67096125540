package broker

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// ErrNewerWire is the cause of a payload refused for its wire version: written by a newer
// Corral than the reader, whose fields it may not know the meaning of. Nodes refuse newer
// requests (nodes/service.go); gateways and CLI clients refuse newer registry entries, answers,
// task records and lease events. Heartbeats and down events are not refused: a newer node is
// alive while it beats (liveness_version.go).
var ErrNewerWire = errors.New("newer wire version")

// newerWire says whether a payload of wire version v is too new to read.
func newerWire(v int) bool { return v > WireVersion }

// wireVersionOf reads the version of a payload that may not decode as this Corral's (a newer
// one may have changed a field's type); 0 when it has none.
func wireVersionOf(data []byte) int {
	var v struct {
		V int `json:"v"`
	}
	_ = json.Unmarshal(data, &v)
	return v.V
}

// errNewerWire is why what (a node's answer, a task record) of version v is refused.
func errNewerWire(what string, v int) error {
	return fmt.Errorf("%s is of wire version %d, newer than this Corral's %d: upgrade the gateway (and corral CLI) to the nodes' version: %w",
		what, v, WireVersion, ErrNewerWire)
}

// Version returns the payload's wire version (readers refuse newer ones).
func (e *DeviceEntry) Version() int { return e.V }

// Version returns the payload's wire version.
func (r *TaskResult) Version() int { return r.V }

// Version returns the payload's wire version.
func (a *LeaseAnswer) Version() int { return a.V }

// Version returns the payload's wire version.
func (a *AbortAnswer) Version() int { return a.V }

// Version returns the payload's wire version.
func (a *LeasesAnswer) Version() int { return a.V }

// Version returns the payload's wire version.
func (a *DrainAnswer) Version() int { return a.V }

// Version returns the payload's wire version.
func (e *Event) Version() int { return e.V }

// newerSeen logs each payload refused for its version once per source and version: a registry
// entry is delivered again on every resync, and a node answers every call in its version.
type newerSeen struct {
	mu   sync.Mutex
	seen map[string]bool
}

// warn logs msg, with the version and what to do, unless it did for source at version v.
func (n *newerSeen) warn(log *slog.Logger, source string, v int, msg string, args ...any) {
	n.mu.Lock()
	k := fmt.Sprintf("%s\x00%d", source, v)
	first := !n.seen[k]
	if first {
		if n.seen == nil {
			n.seen = map[string]bool{}
		}
		n.seen[k] = true
	}
	n.mu.Unlock()
	if first {
		log.Warn(msg, append(args, "version", v, newerNoticeKey, WireVersion,
			"hint", "written by a newer Corral: upgrade the gateway (and corral CLI) to the nodes' version")...)
	}
}
