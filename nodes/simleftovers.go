package nodes

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// forgetBudget bounds the removal of a restarted node's simulated devices from the registry,
// and forgetAtOnce how many deletes are in flight at once (a node may have had hundreds).
const (
	forgetBudget = 10 * time.Second
	forgetAtOnce = 16
)

// simBrand is the brand every simulated Android device reports (the --sim phones, and
// --sim-android's over adb: ro.product.brand), which no real phone does.
const simBrand = "corral"

// simulated says whether e is a simulated device's entry: tagged sim, or of the simulated
// brand. --sim-android's devices carried no tag before 14becdd, so the entries a node of then
// left (under its key, or under the serial alone before node-scoped keys) have only the brand;
// taken for real devices, each was shown offline for good under a serial no start uses again.
func simulated(e broker.DeviceEntry) bool {
	return slices.Contains(e.Tags, device.SimulatedTag) || e.Brand == simBrand
}

// nodeBrowser says whether e is a browser device the node made from its flags (--web: tagged
// web): made afresh at each start, like a simulated device, and gone once a restart does not
// make it again. A browser device brought to the node otherwise carries no such tag, and stays.
func nodeBrowser(e broker.DeviceEntry) bool {
	return e.Platform == device.PlatformWeb && slices.Contains(e.Tags, device.NodeBrowserTag)
}

// forgetSimulated deletes the registry entries (under the node's own keys) of the simulated
// devices a node had before it restarted, and of the browsers it made (nodeBrowser), and queues
// their leases' deletion. A simulated device is started afresh with each node, under a serial
// the next start may not use (a smaller count; an older Corral's --sim-android devices were
// 127.0.0.1:<a free port>): an entry shown offline would stay for good, a ghost of a device
// that no longer exists. One that comes back is written again as it is added, its epoch
// continued (the node keeps its old entry in known). A real device's offline entry stays: it
// tells users the phone is unplugged. It returns the entries it could not delete, which the
// node shows offline instead.
func (n *Node) forgetSimulated(ctx context.Context, entries []broker.DeviceEntry) []broker.DeviceEntry {
	ctx, cancel := context.WithTimeout(ctx, forgetBudget)
	defer cancel()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		kept   []broker.DeviceEntry
		tokens = make(chan struct{}, forgetAtOnce)
	)
	for _, e := range entries {
		if e.Holder != "" {
			n.mirror.Lease(e.Serial, nil) // died with the old node
		}
		tokens <- struct{}{}
		wg.Go(func() {
			defer func() { <-tokens }()
			// An older Corral's entry under the serial alone is not the node's to delete (its
			// NATS user may not): only the key the node writes.
			if err := n.cfg.Stores.Registry.Delete(ctx, broker.RegistryKey(n.cfg.ID, e.Serial)); err != nil {
				n.cfg.Log.Warn("could not remove a simulated device of the node's last run from the registry; it shows offline",
					"serial", e.Serial, "err", err)
				mu.Lock()
				kept = append(kept, e)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if removed := len(entries) - len(kept); removed > 0 {
		n.cfg.Log.Info("simulated devices and browsers of the node's last run removed from the registry", "count", removed)
	}
	return kept
}
