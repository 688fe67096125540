package nodes

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/corral-farm/corral/broker"
)

// A registry entry the bucket refuses as too large is refused at every retry: retried until a
// newer entry of the device replaced it, it was written four times a second for ever, and the
// device's state was never seen. What drivers give is cut where it enters the node
// (entry_bounds.go), so only a bug or a bucket bounded below Corral's 64KiB gets here. The
// mirror then writes that device's entries cut to the least (leastEntry) from then on, saying
// so once at WARN; if even that is refused, it gives the entry up (no retry), says so once at
// ERROR, and the node's readiness names the device, until an entry of it is taken.

// The least entry: a few tags, short words, a reason of a sentence or two; no extras, no queue.
const (
	leastTags       = 8
	leastWordJSON   = 64
	leastReasonJSON = 512
)

// leastEntry is e with what it can do without cut away: extras and the queue's ids left out
// (Queued still counts the waiters), at most leastTags tags, every driver's text cut short.
// The serial, node, state, holder, epoch and running task are the node's and stay.
func leastEntry(e broker.DeviceEntry) broker.DeviceEntry {
	word := func(s string) string { out, _ := cutJSON(s, leastWordJSON); return out }
	e.Platform, e.Model, e.Brand, e.Release, e.SDK = word(e.Platform), word(e.Model), word(e.Brand), word(e.Release), word(e.SDK)
	e.Reason, _ = cutJSON(e.Reason, leastReasonJSON)
	tags := make([]string, 0, min(len(e.Tags), leastTags))
	for _, t := range e.Tags[:min(len(e.Tags), leastTags)] {
		tags = append(tags, word(t))
	}
	e.Tags, e.Extra, e.Queue = tags, nil, nil
	return e
}

// oversized is what the mirror does about entries refused as too large. Only the mirror's
// writer (flush) uses it: no lock.
type oversized struct {
	least   map[string]bool  // serials whose entries go out as leastEntry
	givenUp map[string]error // serials whose least entry was refused too: why
}

// entry is what to write of e.
func (o *oversized) entry(e broker.DeviceEntry) broker.DeviceEntry {
	if o.least[e.Serial] {
		return leastEntry(e)
	}
	return e
}

// refusedTooLarge notes that serial's entry, written as sent, was refused as too large (err,
// explained) and says whether to write it again, cut to the least; false: given up.
func (m *natsMirror) refusedTooLarge(serial string, sent broker.DeviceEntry, err error) (retry bool) {
	o := &m.oversized
	data, _ := json.Marshal(sent)
	size := len(data)
	if !o.least[serial] {
		if o.least == nil {
			o.least, o.givenUp = map[string]bool{}, map[string]error{}
		}
		o.least[serial] = true
		m.log.Warn("a device's registry entry is larger than its bucket takes: its entries are written cut to the least from "+
			"now on (no extras, no queue, a few tags, short texts); a bug to report, with this line", "serial", serial, "bytes", size, "err", err)
		return true
	}
	if _, told := o.givenUp[serial]; !told {
		m.log.Error("a device's registry entry is larger than its bucket takes even cut to the least: not written, and not "+
			"retried; the registry shows the device as last written until one of its entries is taken. A bug to report, with this line",
			"serial", serial, "bytes", size, "err", err)
	}
	o.givenUp[serial] = err
	m.health.entriesRefused(o.givenUp)
	return false
}

// taken notes that serial's entry was written: one given up before is given up no more.
func (m *natsMirror) taken(serial string) {
	o := &m.oversized
	if _, was := o.givenUp[serial]; !was {
		return
	}
	delete(o.givenUp, serial)
	m.log.Info("a device's registry entry is taken again, cut to the least", "serial", serial)
	m.health.entriesRefused(o.givenUp)
}

// entriesRefused keeps the entries given up (by serial: why) for the node's readiness.
func (h *storeHealth) entriesRefused(givenUp map[string]error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refused = maps.Clone(givenUp)
}

// refusedReason is what the node's readiness says of the entries given up, nil if none; h.mu
// is held.
func (h *storeHealth) refusedReason() error {
	if len(h.refused) == 0 {
		return nil
	}
	serials := slices.Sorted(maps.Keys(h.refused))
	return fmt.Errorf("the registry entry of device %s (of %d) is larger than %s takes, even cut: not written (%v; %s)",
		serials[0], len(serials), broker.RegistryBucket, h.refused[serials[0]], troubleTooLarge.short())
}
