package farmtest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// A Hub's gateway takes from each site its own nodes' registry entries only, as a hub given
// --site-nodes does, so that the tests built on StartHub run the scoped sources and restore.
// Site a writes an entry as site b's n2, then one as its own n1: once n1's has reached the hub
// (a source keeps the site's order), n2's forged entry is not there.
func TestHubTakesEachSitesOwnNodesOnly(t *testing.T) {
	h := StartHub(t, HubOptions{Sites: map[string][]string{"a": {"n1"}, "b": {"n2"}}, PhonesPerNode: 1, Quiet: true})
	site := h.Sites["a"]
	nc, err := broker.Connect(site.Connect(broker.UserName(broker.RoleGateway, ""), "forger"), site.log)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, node := range []string{"n2", "n1"} {
		serial := node + "-written-at-a"
		data, err := json.Marshal(broker.DeviceEntry{Serial: serial, Node: node, State: broker.StateOffline})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nc.Request("$KV."+broker.RegistryBucket+"."+broker.RegistryKey(node, serial), data, 5*time.Second); err != nil {
			t.Fatalf("site a's registry did not take %s's entry: %v", node, err)
		}
	}

	hub, err := broker.Connect(h.Connect(broker.UserName(broker.RoleOperator, ""), "reader"), h.log)
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Close()
	js, err := jetstream.New(hub)
	if err != nil {
		t.Fatal(err)
	}
	registry, err := js.KeyValue(t.Context(), broker.RegistryBucket)
	if err != nil {
		t.Fatal(err)
	}
	Eventually(t, 20*time.Second, func() bool {
		_, err := registry.Get(t.Context(), broker.RegistryKey("n1", "n1-written-at-a"))
		return err == nil
	}, "site a's entry of its own n1 reaching the hub")
	if e, err := registry.Get(t.Context(), broker.RegistryKey("n2", "n2-written-at-a")); err == nil {
		t.Fatalf("the hub took site a's entry as site b's n2 (%s): its sources of a are not limited to a's nodes", e.Value())
	}
}
