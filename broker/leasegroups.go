package broker

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A lease group is what acquire_device with count > 1 grants: the leases of several devices,
// taken all or none, behind one handle. Each member stays an ordinary lease of its owner node
// (its own epoch, idle expiry, maximum and renewal by calls); the group only remembers which
// leases belong together, in the bucket LeaseGroupBucket, so that any gateway can resolve it.
//
// The group handle is a secret kept as lease handles are: the bucket knows a group by
// HandleHash(handle), and the members' own handles are sealed (AES-256-GCM) with a key that only
// the group handle gives. Reading the bucket gives no handle to anyone.

// LeaseGroupBucket holds one LeaseGroup per group, keyed by HandleHash(group handle); each
// entry lives until its last member's maximum, or a minute (groupKeep) once a gateway has seen
// every member's lease end (leasegroups_sweep.go).
const LeaseGroupBucket = "corral_lease_groups"

const groupHandlePrefix = "group_"

// NewGroupHandle returns a new group handle: 128 random bits, unguessable.
func NewGroupHandle() string { return randomID(groupHandlePrefix, 16) }

// IsGroupHandle says whether h is a group handle rather than one device's lease handle.
func IsGroupHandle(h string) bool { return strings.HasPrefix(h, groupHandlePrefix) }

// LeaseGroup is a group as the bucket keeps it.
type LeaseGroup struct {
	V int `json:"v"`
	// ID names the group where others see it (list_leases); it tells nothing of the handle.
	ID      string    `json:"id"`
	Holder  Holder    `json:"holder"`
	Created time.Time `json:"created"`
	// Members are in the order they were taken: by node, then serial.
	Members []GroupMember `json:"members"`
	// Sealed are the members' handles (serial → handle), sealed with the group handle.
	Sealed []byte `json:"sealed"`
	// Ended is when a gateway saw the last of its members' leases end; the entry then lives
	// a minute more (groupKeep), not until the members' maximum.
	Ended time.Time `json:"ended,omitzero"`
}

// GroupMember is one member lease of a group, without its handle.
type GroupMember struct {
	Serial       string    `json:"serial"`
	Node         string    `json:"node"`
	Epoch        uint64    `json:"epoch"`
	HandleSHA256 string    `json:"handle_sha256"`
	ExpiresAt    time.Time `json:"expires_at"`
	MaxUntil     time.Time `json:"max_until"`
}

// NewLeaseGroup makes the group of these leases (with their handles) behind handle.
func NewLeaseGroup(handle string, holder Holder, leases []Lease, now time.Time) (LeaseGroup, error) {
	g := LeaseGroup{V: WireVersion, ID: groupID(handle), Holder: holder, Created: now}
	handles := make(map[string]string, len(leases))
	for _, l := range leases {
		if l.Handle == "" {
			return g, fmt.Errorf("lease group: the lease of %s has no handle", l.Serial)
		}
		handles[l.Serial] = l.Handle
		g.Members = append(g.Members, GroupMember{Serial: l.Serial, Node: l.Node, Epoch: l.Epoch,
			HandleSHA256: HandleHash(l.Handle), ExpiresAt: l.ExpiresAt, MaxUntil: l.MaxUntil})
	}
	plain, err := json.Marshal(handles)
	if err != nil {
		return g, fmt.Errorf("lease group: %w", err)
	}
	aead, err := groupCipher(handle)
	if err != nil {
		return g, err
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails (Go 1.24+)
	g.Sealed = aead.Seal(nonce, nonce, plain, []byte(g.ID))
	return g, nil
}

// Member returns the member lease of serial.
func (g LeaseGroup) Member(serial string) (GroupMember, bool) {
	for _, m := range g.Members {
		if m.Serial == serial {
			return m, true
		}
	}
	return GroupMember{}, false
}

// Serials lists the members' serials, in the group's order.
func (g LeaseGroup) Serials() []string {
	out := make([]string, len(g.Members))
	for i, m := range g.Members {
		out[i] = m.Serial
	}
	return out
}

// MemberHandles unseals the members' handles (serial → handle) with the group handle. It fails
// for a handle that is not the group's, and for a sealed value that was changed.
func (g LeaseGroup) MemberHandles(handle string) (map[string]string, error) {
	if groupID(handle) != g.ID {
		return nil, errors.New("lease group: the handle is not this group's")
	}
	aead, err := groupCipher(handle)
	if err != nil {
		return nil, err
	}
	if len(g.Sealed) < aead.NonceSize() {
		return nil, errors.New("lease group: its sealed handles are cut short")
	}
	nonce, box := g.Sealed[:aead.NonceSize()], g.Sealed[aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, box, []byte(g.ID))
	if err != nil {
		return nil, fmt.Errorf("lease group: its sealed handles do not open: %w", err)
	}
	var handles map[string]string
	if err := json.Unmarshal(plain, &handles); err != nil {
		return nil, fmt.Errorf("lease group: its sealed handles are unreadable: %w", err)
	}
	for _, m := range g.Members {
		if HandleHash(handles[m.Serial]) != m.HandleSHA256 {
			return nil, fmt.Errorf("lease group: the sealed handle of %s is not its member's", m.Serial)
		}
	}
	return handles, nil
}

// LastMaxUntil is the latest maximum of the members: no member outlives it.
func (g LeaseGroup) LastMaxUntil() time.Time {
	var last time.Time
	for _, m := range g.Members {
		if m.MaxUntil.After(last) {
			last = m.MaxUntil
		}
	}
	return last
}

// groupKey is the bucket key of a group handle.
func groupKey(handle string) string { return HandleHash(handle) }

// groupID is the public name of a group: part of its key, which the bucket shows anyway.
func groupID(handle string) string { return idOfKey(groupKey(handle)) }

func idOfKey(key string) string { return "grp_" + key[:min(16, len(key))] }

// groupCipher is the AEAD that seals a group's member handles: its key is derived from the
// group handle (128 random bits), apart from the hash that keys the bucket.
func groupCipher(handle string) (cipher.AEAD, error) {
	key := sha256.Sum256([]byte("corral lease group seal v1\x00" + handle))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("lease group: %w", err)
	}
	return cipher.NewGCM(block)
}
