package broker

import (
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// nodeEntry is a registry entry a node's watch delivers (nodewatch.go), read as nats.go's KV
// watch reads one (jetstream's entries cannot be made outside it).
type nodeEntry struct {
	key             string
	value           []byte
	revision, delta uint64
	created         time.Time
	op              jetstream.KeyValueOp
}

func newNodeEntry(m jetstream.Msg, meta *jetstream.MsgMetadata) *nodeEntry {
	op := jetstream.KeyValuePut
	switch h := m.Headers(); {
	case h.Get("KV-Operation") == "DEL", h.Get(jetstream.MarkerReasonHeader) == "Remove":
		op = jetstream.KeyValueDelete
	case h.Get("KV-Operation") == "PURGE", h.Get(jetstream.MarkerReasonHeader) == "MaxAge", h.Get(jetstream.MarkerReasonHeader) == "Purge":
		op = jetstream.KeyValuePurge
	}
	return &nodeEntry{key: strings.TrimPrefix(m.Subject(), "$KV."+RegistryBucket+"."), value: m.Data(),
		revision: meta.Sequence.Stream, delta: meta.NumPending, created: meta.Timestamp, op: op}
}

func (e *nodeEntry) Bucket() string                  { return RegistryBucket }
func (e *nodeEntry) Key() string                     { return e.key }
func (e *nodeEntry) Value() []byte                   { return e.value }
func (e *nodeEntry) Revision() uint64                { return e.revision }
func (e *nodeEntry) Created() time.Time              { return e.created }
func (e *nodeEntry) Delta() uint64                   { return e.delta }
func (e *nodeEntry) Operation() jetstream.KeyValueOp { return e.op }
