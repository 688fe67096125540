package nodes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A text cut to a bound takes at most the bound as a JSON string, whatever it escapes, ends
// with "…" after a whole character, starts as the text did, and is cut no shorter than it must
// by its reckoning (an upper bound: encoding/json writes an invalid byte in 3 bytes or 6).
// A text within the bound is kept whole.
func TestCutJSONKeepsTheBoundAndWholeCharacters(t *testing.T) {
	const limit = 4 << 10
	for name, s := range map[string]string{
		"ascii":    strings.Repeat("adb: device offline; ", 1<<15),
		"accented": strings.Repeat("é", 1<<19),
		"escaped":  strings.Repeat("<&>", 1<<18),
		"controls": strings.Repeat("\x01\n\"\\", 1<<18),
		"emoji":    strings.Repeat("📱\u2028", 1<<17),
		"invalid":  strings.Repeat("\xff", 1<<20),
	} {
		cut, ok := cutJSON(s, limit)
		require.True(t, ok, name)
		data, err := json.Marshal(cut)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(data), limit, name)
		assert.Greater(t, jsonLen(cut), limit-2*6, "%s: cut shorter than it must (by its reckoning: encoding/json may write less)", name)
		assert.True(t, strings.HasSuffix(cut, ellipsis), name)
		assert.True(t, strings.HasPrefix(s, strings.TrimSuffix(cut, ellipsis)), name)
		if utf8.ValidString(s) {
			assert.True(t, utf8.ValidString(cut), "%s: cut inside a character", name)
		}
	}
	short := strings.Repeat("é", 100)
	kept, ok := cutJSON(short, limit)
	assert.False(t, ok)
	assert.Equal(t, short, kept)
	edge := strings.Repeat("a", limit-2) // exactly the bound with its quotes
	kept, ok = cutJSON(edge, limit)
	assert.False(t, ok)
	assert.Equal(t, edge, kept)
}

// The largest entry a node can write, with every field a driver gives at its worst (a mebibyte
// of characters JSON escapes, thousands of tags and extras) and the node's own part full (a
// queue of broker.MaxQueueShown, a running task), fits the registry's bucket once cut: a real
// bucket takes it. The driver's own tags and extras are not changed.
func TestWorstEntryFitsTheRegistry(t *testing.T) {
	ctx, stores, log := mirrorStores(t)
	huge := strings.Repeat("<\x01", 1<<19)
	tags := make([]string, 10_000)
	extra := map[string]string{}
	for i := range tags {
		tags[i] = fmt.Sprintf("%d%s", i, huge[:4<<10])
		extra[fmt.Sprintf("%05d%s", i, huge[:1<<10])] = huge[:8<<10]
	}
	b := newEntryBounds(log)
	e := b.info(broker.DeviceEntry{V: broker.WireVersion, Serial: "p1", Platform: huge, Model: huge, Brand: huge, Release: huge, SDK: huge,
		Tags: tags, Extra: extra, Node: "n1", Epoch: 1 << 60})
	e.State, e.Reason = broker.StateUnhealthy, b.reasonText(e.Serial, huge)
	holder := broker.Holder{Principal: strings.Repeat("p", 256), Client: strings.Repeat("c", 256), Session: broker.SessionTag("s")}
	e.Holder, e.Updated = holder.String(), time.Now()
	e.Task = &broker.RunningTask{ID: broker.NewTaskID(), Tool: "run_agent_task", Holder: &holder, Started: time.Now(), Deadline: time.Now()}
	for i := range broker.MaxQueueShown { // task ids and lease requests' tags
		id := broker.NewTaskID()
		if i%2 == 1 {
			id = broker.RequestTag(id)
		}
		e.Queue = append(e.Queue, id)
	}
	e.Queued = 1 << 30

	data, err := json.Marshal(e)
	require.NoError(t, err)
	t.Logf("the worst entry takes %d bytes", len(data))
	_, err = stores.Registry.Put(ctx, broker.RegistryKey("n1", e.Serial), data)
	require.NoError(t, err, "the worst entry, %d bytes", len(data))
	assert.Len(t, e.Tags, maxTags)
	assert.NotEmpty(t, e.Extra)
	assert.Len(t, tags, 10_000)
	assert.Len(t, tags[0], 1+4<<10, "the driver's tag changed")
	assert.Len(t, extra, 10_000)
}
