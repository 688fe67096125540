package main

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// corral devices says on stderr, once for the node, that it skipped registry entries of a
// newer wire version, and what to upgrade: the farm client's warning went only to --log-level
// debug, so a node upgraded ahead had its devices missing from the table with nothing said.
func TestDevicesSaysOnceWhatANewerNodesEntriesLeftOut(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	nc, err := broker.Connect(f.Connect("admin", "test-writer"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.KeyValue(t.Context(), broker.RegistryBucket)
	require.NoError(t, err)
	for _, serial := range []string{"future-1", "future-2"} {
		entry := fmt.Sprintf(`{"v":%d,"serial":%q,"platform":"android","model":"X","node":"n9","state":"online","epoch":0,"updated":%q}`,
			broker.WireVersion+1, serial, time.Now().UTC().Format(time.RFC3339Nano))
		_, err := kv.Put(t.Context(), broker.RegistryKey("n9", serial), []byte(entry))
		require.NoError(t, err)
	}

	code, out, errOut := corralMain(t, "devices", "--nats-context", f.Context("admin"))
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.NotContains(t, out, "future-", "a newer entry is not listed")
	assert.Equal(t, 1, strings.Count(errOut, "registry entry of a newer wire version skipped"),
		"said once for node n9, on stderr:\n%s", errOut)
	assert.Contains(t, errOut, "upgrade the gateway (and corral CLI) to the nodes' version")
	assert.Contains(t, errOut, "node=n9")
	assert.NotContains(t, errOut, "level=INFO", "the farm client's other news stays out")
}

// corral tasks says on stderr how many task records it skipped for their newer wire version,
// and what to upgrade: it left them out of the list with nothing said.
func TestTasksSaysWhatNewerRecordsLeftOut(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	nc, err := broker.Connect(f.Connect("", "test-writer"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	for _, id := range []string{"t-future-1", "t-future-2"} {
		record := fmt.Sprintf(`{"v":%d,"id":%q,"node":"n9","serial":"future-1","tool":"tap_xy","outcome":"succeeded","finished":%q}`,
			broker.WireVersion+1, id, time.Now().UTC().Format(time.RFC3339Nano))
		_, err := js.Publish(t.Context(), fmt.Sprintf(broker.EventTaskT, "n9", id), []byte(record))
		require.NoError(t, err)
	}

	code, out, errOut := corralMain(t, "tasks", "--nats-url", f.URL)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.NotContains(t, out, "t-future", "a newer record is not listed")
	assert.Equal(t, 1, strings.Count(errOut, "task records of wire version"), "said once, on stderr:\n%s", errOut)
	assert.Contains(t, errOut, fmt.Sprintf("(2 task records of wire version %d, newer than this corral's %d, were skipped: "+
		"upgrade the gateway (and corral CLI) to the nodes' version)", broker.WireVersion+1, broker.WireVersion))
}
