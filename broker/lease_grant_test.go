package broker

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// A lease's grant is found by its handle's hash, newest first, past the device's later grants
// and many other events; MaxScan and Since bound the search (a grant past them is not found);
// a grant whose subject names another node than its body, or another device, is not trusted.
func TestLeaseGrantFindsAHandlesDevice(t *testing.T) {
	s := openStores(t)
	acked := func() {
		t.Helper()
		select {
		case <-s.JS.PublishAsyncComplete():
		case <-t.Context().Done():
			t.Fatal("events not acknowledged")
		}
	}
	sent := 0
	publish := func(subject string, ev Event) {
		t.Helper()
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.JS.PublishMsgAsync(&nats.Msg{Subject: subject, Data: b}); err != nil {
			t.Fatal(err)
		}
		// Fewer in flight than nats.go's limit (4000): past it, a publish that waits more
		// than 200 ms for acknowledgements fails ("stalled …"), as it did under a loaded -race run.
		if sent++; sent%500 == 0 {
			acked()
		}
	}
	grant := func(node, serial, handle string) {
		publish(fmt.Sprintf(EventLeaseT, node, Token(serial), "granted"), Event{V: WireVersion, Kind: "lease", Serial: serial, Node: node,
			What: "granted", Holder: "alice", At: time.Now(), HandleSHA256: HandleHash(handle)})
	}
	sought, forged, elsewhere := NewLeaseHandle(), NewLeaseHandle(), NewLeaseHandle()
	grant("n1", "d7", sought)
	// A node that writes a grant under another node's subject, or of another device.
	publish(fmt.Sprintf(EventLeaseT, "n2", Token("d1"), "granted"), Event{V: WireVersion, Kind: "lease", Serial: "d1", Node: "n1",
		What: "granted", HandleSHA256: HandleHash(forged)})
	publish(fmt.Sprintf(EventLeaseT, "n1", Token("d1"), "granted"), Event{V: WireVersion, Kind: "lease", Serial: "d2", Node: "n1",
		What: "granted", HandleSHA256: HandleHash(elsewhere)})
	const later = 3000 // grants since, of d7 and others, among other events
	for i := range later {
		grant("n1", fmt.Sprintf("d%d", i%10), NewLeaseHandle())
		publish(fmt.Sprintf(EventDevT, "n1", "d1", StateOnline), Event{V: WireVersion, Kind: "device", What: StateOnline})
	}
	acked()

	find := func(handle string, since time.Time, maxScan int) (Event, bool) {
		t.Helper()
		ev, found, err := s.leaseGrant(t.Context(), GrantQuery{HandleSHA256: HandleHash(handle), Since: since, MaxScan: maxScan})
		if err != nil {
			t.Fatal(err)
		}
		return ev, found
	}
	if ev, found := find(sought, time.Time{}, later+10); !found || ev.Serial != "d7" || ev.Node != "n1" {
		t.Errorf("grant of the sought handle: %+v, found %v; want d7 of n1", ev, found)
	}
	if _, found := find(sought, time.Time{}, later); found {
		t.Errorf("found a grant older than the %d newest, past MaxScan", later)
	}
	if _, found := find(sought, time.Now().Add(time.Hour), later+10); found {
		t.Errorf("found a grant stored before Since")
	}
	for name, h := range map[string]string{"under another node's subject": forged, "of another device than its subject's": elsewhere} {
		if ev, found := find(h, time.Time{}, later+10); found {
			t.Errorf("trusted a grant %s: %+v", name, ev)
		}
	}
	if _, found := find(NewLeaseHandle(), time.Time{}, later+10); found {
		t.Errorf("found a grant of a handle never granted")
	}
}
