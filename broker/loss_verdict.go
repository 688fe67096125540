package broker

import (
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
)

// A node hears one gateway's loss verdict more than once: the registry entries it wrote, then
// its loss event, or the other way round. Each gateway told the callers waiting on the node at
// its verdict, before it wrote anything, so a copy of a verdict the node heard already tells
// of no caller told since; another gateway's verdict on the same loss may (the loss event's
// Nats-Msg-Id, the same for every gateway, cannot tell them apart: loss_id.go). So a verdict
// is named by its time: the Updated of every entry it writes, and the LossVerdictHeader of its
// loss event. An older gateway's entries and event name no verdict the node can match.

// LossVerdictHeader is the header of a gateway's loss event that names its verdict.
const LossVerdictHeader = "Corral-Loss-Verdict"

// verdictName names a verdict taken at at.
func verdictName(at time.Time) string { return strconv.FormatInt(at.UnixNano(), 10) }

// EntryVerdict names the verdict that wrote e, a registry entry DeclaredLost recognises.
func EntryVerdict(e DeviceEntry) string { return verdictName(e.Updated) }

// EventVerdict names the verdict of a loss event by its header: "" for an older gateway's.
func EventVerdict(h nats.Header) string { return h.Get(LossVerdictHeader) }
