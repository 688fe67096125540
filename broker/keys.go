package broker

import (
	"context"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Registry and lease keys carry their node: <node>.<Token(serial)>. NATS permissions are on
// subjects, and a bucket's key is the last part of its subject ($KV.corral_devices.<key>), so a
// node user allowed $KV.corral_devices.<node>.> writes its own entries and no other node's.
// Readers check that an entry's node is its key's (CheckEntryKey): an entry a node wrote about
// another node's device under its own prefix is ignored.

// RegistryKey is the corral_devices key of a node's device.
func RegistryKey(node, serial string) string { return node + "." + Token(serial) }

// LeaseKey is the corral_leases key of a node's device.
func LeaseKey(node, serial string) string { return node + "." + Token(serial) }

// CheckEntryKey says whether a registry entry may be trusted under key: only when the key is
// the one its node writes it under, or the serial alone (the keys of nodes started without
// ForNode; a node's NATS user cannot write such keys, only a farm without NATS permissions).
func CheckEntryKey(key string, e DeviceEntry) bool {
	return e.Node != "" && (key == RegistryKey(e.Node, e.Serial) || key == Token(e.Serial))
}

// leaseKeyFor is the lease key that goes with a registry key: a node writes both the same way.
func leaseKeyFor(registryKey string, e DeviceEntry) string {
	if registryKey == Token(e.Serial) {
		return registryKey
	}
	return LeaseKey(e.Node, e.Serial)
}

// ForNode returns the stores as node sees them: registry and lease keys written through them
// (KeyValue Put, Create, Update, Delete, and publishes to $KV.corral_devices.<key>) land
// under <node>.<key>, the only keys a node's NATS user may write. It lets an edge node written
// against serial keys write node keys; reads and watches are left as they are.
func (s *Stores) ForNode(node string) *Stores {
	cp := *s
	prefix := node + "."
	cp.Registry = nodeKV{KeyValue: s.Registry, prefix: prefix}
	cp.Leases = nodeKV{KeyValue: s.Leases, prefix: prefix}
	cp.JS = nodeJS{JetStream: s.JS, prefix: prefix}
	return &cp
}

// nodeKV writes a bucket's keys under a node's prefix.
type nodeKV struct {
	jetstream.KeyValue
	prefix string
}

func (k nodeKV) key(key string) string {
	if strings.HasPrefix(key, k.prefix) {
		return key
	}
	return k.prefix + key
}

func (k nodeKV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	return k.KeyValue.Put(ctx, k.key(key), value)
}

func (k nodeKV) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	return k.KeyValue.Create(ctx, k.key(key), value, opts...)
}

func (k nodeKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	return k.KeyValue.Update(ctx, k.key(key), value, revision)
}

func (k nodeKV) Delete(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	return k.KeyValue.Delete(ctx, k.key(key), opts...)
}

// nodeJS rewrites asynchronous publishes to the registry and lease buckets' subjects (how an
// edge node writes many entries at once) to the node's keys.
type nodeJS struct {
	jetstream.JetStream
	prefix string
}

func (j nodeJS) subject(subj string) string {
	for _, b := range []string{RegistryBucket, LeaseBucket} {
		base := "$KV." + b + "."
		if key, ok := strings.CutPrefix(subj, base); ok && !strings.Contains(key, ".") {
			return base + j.prefix + key
		}
	}
	return subj
}

func (j nodeJS) PublishAsync(subj string, data []byte, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	return j.JetStream.PublishAsync(j.subject(subj), data, opts...)
}
