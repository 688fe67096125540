package console

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// Acquire's answers are for a person: a refusal because another holds the device names the
// holder and the lease's end (busy, which the page words in the browser's zone), not an
// agent's advice (wait_seconds); a lease taken gives its times as instants for the page to
// show in the browser's zone, and its message says UTC, not the server's zone unnamed. (The
// gateway's Actions mark acquire_device's busy refusal Busy: mcp TestRefusedAsBusy.)
func TestAcquireAnswersForAPerson(t *testing.T) {
	farm := testFarm()
	bob := broker.Holder{Principal: "bob", Client: "agent"}
	farm.set("d2", func(d *broker.DeviceEntry) { d.Holder, d.State = bob.String(), broker.StateLeased })
	farm.leases = append(farm.leases, broker.Lease{Serial: "d2", Node: "n2", Holder: bob, Epoch: 1,
		AcquiredAt: time.Now(), ExpiresAt: time.Now().Add(time.Minute), MaxUntil: time.Now().Add(time.Hour)})
	until, max := time.Date(2026, 12, 5, 13, 37, 0, 0, time.UTC), time.Date(2026, 12, 5, 17, 32, 0, 0, time.UTC)
	busy := true
	acts := &fakeActions{answer: func(tool string, args map[string]any) Answer {
		if tool != "acquire_device" {
			return Answer{OK: true, Message: tool + " done"}
		}
		if busy {
			return Answer{Busy: true, Message: "no device matching serial d2 could be leased: acquire_device on d2 refused (busy): held by bob (agent) until 13:37:00 UTC. Pass wait_seconds to queue for it, or use another device."}
		}
		data, _ := json.Marshal(map[string]any{"lease": map[string]any{"handle": "h_secret", "serial": "d2", "expires_at": until, "max_until": max}})
		return Answer{OK: true, Message: "Leased device d2", Data: data}
	}}
	srv, _ := actionsConsole(t, farm, acts)
	s := openSession(t, srv, labToken, "/devices/d2")

	status, a := s.act(t, "d2", "acquire", "")
	if status != http.StatusConflict || a.Busy == nil || a.Busy.Holder != "bob (agent)" || a.Busy.Until.IsZero() ||
		strings.Contains(a.Message, "wait_seconds") || !strings.Contains(a.Message, "ask bob (agent) to release it") {
		t.Errorf("acquire of a device bob holds: %d %q busy %+v; want the holder, the lease's end, and advice for a person", status, a.Message, a.Busy)
	}

	busy = false
	farm.set("d2", func(d *broker.DeviceEntry) { d.Holder, d.State = "", broker.StateOnline })
	status, a = s.act(t, "d2", "acquire", "")
	if status != http.StatusOK || a.Lease == nil || !a.Lease.Until.Equal(until) || !a.Lease.Max.Equal(max) ||
		!strings.Contains(a.Message, "until 13:37:00 UTC") || !strings.Contains(a.Message, "at the latest 17:32:00 UTC") || strings.Contains(a.Message, "h_secret") {
		t.Errorf("acquire: %d %q lease %+v; want its times as instants, and UTC named in the message", status, a.Message, a.Lease)
	}
}
