package embedded_test

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// Stores that take no writes after the disk filled work again by themselves once the disk has
// room: a store that failed a write (it logs a critical write error and fails every write
// after) or JetStream switched off (a cluster's server does that: handleOutOfSpace calls
// ShutdownJetStream). What was stored is still there, and writes work, with no restart of the
// server. It is said once that the stores take no writes, and once that they do again.
func TestStoresThatFailedAWriteWorkAgainWithRoom(t *testing.T) {
	t.Run("write error", func(t *testing.T) {
		testStoresWorkAgain(t, func(ns *server.Server) {
			// As the stream logs a failed write (stream.go, setWriteErrLocked), through Corral's logger.
			ns.Errorf("JetStream stream '%s > %s' critical write error: %v", "$G", "KV_b", "write 1.blk: no space left on device")
		})
	})
	t.Run("switched off", func(t *testing.T) {
		testStoresWorkAgain(t, func(ns *server.Server) {
			if err := ns.ShutdownJetStream(); err != nil {
				t.Fatal(err)
			}
		})
	})
}

func testStoresWorkAgain(t *testing.T, fail func(*server.Server)) {
	var logs logtest.Buffer
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), ReviveEvery: 20 * time.Millisecond},
		slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "b", MaxBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.PutString(ctx, "before", "kept"); err != nil {
		t.Fatal(err)
	}

	fail(ns)
	deadline := time.Now().Add(30 * time.Second)
	for logs.Line("JetStream restarted") == "" {
		if time.Now().After(deadline) {
			t.Fatalf("JetStream was not restarted; log:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !ns.JetStreamEnabled() {
		t.Fatal("the log says JetStream restarted, the server says it is off")
	}
	if line := logs.Line("stores take no writes"); !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "Free space on the disk of") {
		t.Errorf("the outage was not told as an ERROR saying what to do: %q", line)
	}
	// Each outage is told once and its end once. (On a loaded machine the test's switch-off can
	// end after the loop's first restart, a second outage the loop tells and ends too.)
	tellsAndEnds := func() (int, int) {
		text := logs.String()
		return strings.Count(text, "stores take no writes ("), strings.Count(text, "JetStream restarted")
	}
	for tells, ends := tellsAndEnds(); tells != ends || !ns.JetStreamEnabled(); tells, ends = tellsAndEnds() {
		if time.Now().After(deadline) {
			t.Fatalf("the outages were told %d times and ended %d times; log:\n%s", tells, ends, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	kv, err = js.KeyValue(ctx, "b") // the bucket came back from its files
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get(ctx, "before")
	if err != nil || string(e.Value()) != "kept" {
		t.Fatalf("what was stored before: %v %v", e, err)
	}
	if _, err := kv.PutString(ctx, "after", "written"); err != nil {
		t.Fatalf("a write after JetStream came back: %v", err)
	}
}

// The revive loop ends with its server: none is left running once the server has shut down.
func TestReviveLoopEndsWithTheServer(t *testing.T) {
	reviving := func() int {
		buf := make([]byte, 1<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "embedded.reviveJetStream(")
	}
	waitFor := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); reviving() != want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d revive loops run, want %d", reviving(), want)
			}
		}
	}
	waitFor(0) // earlier tests' servers are shut down
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), ReviveEvery: 20 * time.Millisecond}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(1)
	ns.Shutdown()
	ns.WaitForShutdown()
	waitFor(0)
}
