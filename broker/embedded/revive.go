package embedded

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/corral-farm/corral/internal/diskfree"
)

// When its disk fills, nats-server stops storing for good: each store that failed a write
// keeps failing every write ("critical write error"; a server of a cluster switches JetStream
// off instead: "JetStream out of resources, will be DISABLED"), until the server restarts, even
// once space is freed. A server of one (corral up's, a site's) restarts its JetStream itself
// once its store's disk has room again (reviveRoom): streams and buckets come back from their
// files and writes resume, with nobody to restart anything.
const (
	// DefaultReviveEvery is how often a server whose stores take no writes looks at its disk.
	DefaultReviveEvery = 10 * time.Second
	// reviveMinFree is the free space JetStream needs back before it is switched on again:
	// room for a few of its 8 MiB message blocks, so that the first writes do not fill the
	// disk again at once; an eighth of the disk, on disks smaller than 512 MiB.
	reviveMinFree = 64 << 20
)

// reviveRoom is the free space dir's disk needs before JetStream is switched on again, and
// what is free there now.
func reviveRoom(dir string) (need, free int64, err error) {
	size, free, err := diskfree.Of(dir)
	if err != nil {
		return reviveMinFree, 0, err
	}
	return min(reviveMinFree, size/8), free, nil
}

// jetStreamConfig is the JetStream configuration the server starts with, as nats-server's
// Start builds it from so (server.go): the same one switches it back on.
func jetStreamConfig(so *server.Options) *server.JetStreamConfig {
	return &server.JetStreamConfig{StoreDir: so.StoreDir, MaxMemory: so.JetStreamMaxMemory, MaxStore: so.JetStreamMaxStore,
		Domain: so.JetStreamDomain, SyncInterval: so.SyncInterval, SyncAlways: so.SyncAlways, Strict: !so.NoJetStreamStrict,
		CompressOK: true, UniqueTag: so.JetStreamUniqueTag}
}

// reviveJetStream restarts ns's JetStream once it went off or a store failed a write (the
// server logged it: serverLog.writeFailed), and its store's disk has room, looking every every,
// until ns shuts down. It says once that stores take no writes and what to do, and once that
// they do again.
func reviveJetStream(ns *server.Server, so *server.Options, every time.Duration, serverLog *serverLog) {
	log := serverLog.log
	stopped := make(chan struct{})
	go func() { ns.WaitForShutdown(); close(stopped) }()
	tick := time.NewTicker(every)
	defer tick.Stop()
	told := false // that the stores take no writes
	lastErr := ""
	for {
		select {
		case <-stopped:
			return
		case <-tick.C:
		}
		on := ns.JetStreamEnabled()
		if on && !serverLog.writeFailed.Load() || !ns.Running() {
			continue
		}
		need, free, err := reviveRoom(so.StoreDir)
		if !told {
			told = true
			log.Error(fmt.Sprintf("JetStream stores take no writes (a write failed, most likely as the disk filled): task records, "+
				"events, screenshots, leases and sessions are not stored. Free space on the disk of %s: Corral restarts JetStream "+
				"once %s are free there, with no restart of its own", so.StoreDir, sizeText(need)), "free", sizeText(free), "err", err)
		}
		if err != nil || free < need {
			continue
		}
		serverLog.writeFailed.Store(false) // from here on, a failed write is a new one
		if on {
			_ = ns.ShutdownJetStream() // keeps the files; drops the stores' sticky write errors
		}
		serverLog.restartingAfterFailedWrites()
		if err := ns.EnableJetStream(jetStreamConfig(so)); err != nil {
			if err.Error() != lastErr { // once per reason, not every look
				lastErr = err.Error()
				log.Warn("JetStream could not be restarted; trying again", "store", so.StoreDir, "free", sizeText(free), "err", err)
			}
			continue
		}
		told, lastErr = false, ""
		log.Info("JetStream restarted: its stores take writes again", "store", so.StoreDir, "free", sizeText(free))
	}
}

// sizeText is n bytes in MiB, as people read disk space.
func sizeText(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
