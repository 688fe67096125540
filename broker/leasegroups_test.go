package broker

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func testGroup(t testing.TB) (string, LeaseGroup, []Lease) {
	t.Helper()
	now := time.Now()
	leases := []Lease{
		{Handle: NewLeaseHandle(), Serial: "a", Node: "n1", Epoch: 3, ExpiresAt: now.Add(time.Minute), MaxUntil: now.Add(time.Hour)},
		{Handle: NewLeaseHandle(), Serial: "b.c:5555", Node: "n2", Epoch: 9, ExpiresAt: now.Add(time.Minute), MaxUntil: now.Add(2 * time.Hour)},
	}
	handle := NewGroupHandle()
	g, err := NewLeaseGroup(handle, Holder{Principal: "alice"}, leases, now)
	if err != nil {
		t.Fatal(err)
	}
	return handle, g, leases
}

// The members' handles come back only with the group's handle, and only as they were sealed.
func TestLeaseGroupSealsMemberHandles(t *testing.T) {
	handle, g, leases := testGroup(t)
	if !IsGroupHandle(handle) || IsGroupHandle(leases[0].Handle) {
		t.Fatalf("IsGroupHandle(%q), IsGroupHandle(%q)", handle, leases[0].Handle)
	}
	got, err := g.MemberHandles(handle)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leases {
		if got[l.Serial] != l.Handle {
			t.Errorf("handle of %s: got %q", l.Serial, got[l.Serial])
		}
	}
	if g.LastMaxUntil() != leases[1].MaxUntil || len(g.Serials()) != 2 || g.Members[1].HandleSHA256 != HandleHash(leases[1].Handle) {
		t.Errorf("group %+v", g)
	}
	raw, _ := json.Marshal(g)
	for _, secret := range []string{handle, leases[0].Handle, leases[1].Handle} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the group as kept holds a handle: %s", raw)
		}
	}

	if _, err := g.MemberHandles(NewGroupHandle()); err == nil {
		t.Error("another group's handle opened the group")
	}
	other, _ := NewLeaseGroup(NewGroupHandle(), Holder{}, leases, time.Now())
	swapped := g
	swapped.Sealed = other.Sealed // another group's sealed handles under this group
	if _, err := swapped.MemberHandles(handle); err == nil {
		t.Error("another group's sealed handles opened")
	}
	flipped := g
	flipped.Sealed = append([]byte(nil), g.Sealed...)
	flipped.Sealed[len(flipped.Sealed)-1] ^= 1
	if _, err := flipped.MemberHandles(handle); err == nil {
		t.Error("changed sealed handles opened")
	}
	moved := g
	moved.Members = append([]GroupMember(nil), g.Members...)
	moved.Members[0].HandleSHA256 = HandleHash(NewLeaseHandle())
	if _, err := moved.MemberHandles(handle); err == nil {
		t.Error("a member whose handle hash was changed opened")
	}
	if _, err := NewLeaseGroup(handle, Holder{}, []Lease{{Serial: "x"}}, time.Now()); err == nil {
		t.Error("a lease without handle made a group")
	}
}

// A bucket entry must be the group its key names.
func TestDecodeLeaseGroupChecksItsKey(t *testing.T) {
	handle, g, _ := testGroup(t)
	raw, _ := json.Marshal(g)
	if _, err := decodeLeaseGroup(groupKey(handle), raw); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeLeaseGroup(groupKey(NewGroupHandle()), raw); err == nil {
		t.Error("a group was read under another group's key")
	}
	if _, err := decodeLeaseGroup(groupKey(handle), []byte("{")); err == nil {
		t.Error("a broken entry was read")
	}
}

// Whatever a bucket entry holds, reading and opening it fails cleanly or gives the handles of
// members it names.
func FuzzLeaseGroupEntry(f *testing.F) {
	handle, g, _ := testGroup(f)
	raw, _ := json.Marshal(g)
	f.Add(groupKey(handle), raw, handle)
	f.Add("", []byte(`{"id":"grp_","sealed":"AAAA"}`), "group_x")
	f.Add("k", []byte(`null`), "")
	f.Fuzz(func(t *testing.T, key string, data []byte, h string) {
		g, err := decodeLeaseGroup(key, data)
		if err != nil {
			return
		}
		handles, err := g.MemberHandles(h)
		if err != nil {
			return
		}
		for _, m := range g.Members {
			if HandleHash(handles[m.Serial]) != m.HandleSHA256 {
				t.Fatalf("member %s opened with a handle not its own", m.Serial)
			}
		}
	})
}
