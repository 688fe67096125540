package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// natsAuthHub is a hub and its edge sites on nats-servers of their own, with the users and
// leafnodes blocks corral nats-auth wrote into dir. A site's server has no users: whoever runs
// it reads and writes all of it, which is what a site's leaf user must be safe against.
type natsAuthHub struct {
	dir   string
	hub   *server.Server
	sites map[string]*server.Server
}

func startNATSAuthHub(t *testing.T, sites ...string) *natsAuthHub {
	t.Helper()
	h := &natsAuthHub{dir: filepath.Join(t.TempDir(), "auth"), sites: map[string]*server.Server{}}
	args := []string{"--dir", h.dir, "--node", "*", "--leaf-url", "nats-leaf://127.0.0.1:7422"}
	for _, s := range sites {
		args = append(args, "--site", s)
	}
	captureStdout(t, func() { require.NoError(t, runNATSAuth(t.Context(), args)) })
	opts, err := server.ProcessConfigFile(filepath.Join(h.dir, "nats-server-auth.conf"))
	require.NoError(t, err)
	opts.Port, opts.LeafNode.Port, opts.JetStream, opts.StoreDir, opts.ServerName = -1, -1, true, t.TempDir(), "hub"
	h.hub = runTestServer(t, opts)
	for _, s := range sites {
		name, _, _ := strings.Cut(s, "=")
		block, err := os.ReadFile(filepath.Join(h.dir, broker.LeafUserName(name)+"-remote.conf"))
		require.NoError(t, err)
		joined := strings.Replace(string(block), "127.0.0.1:7422", fmt.Sprintf("127.0.0.1:%d", opts.LeafNode.Port), 1)
		conf := filepath.Join(t.TempDir(), "site.conf")
		require.NoError(t, os.WriteFile(conf, []byte("port: -1\nserver_name: "+name+"\njetstream { domain: "+name+", store_dir: "+
			strconv.Quote(t.TempDir())+" }\n"+joined), 0o600))
		siteOpts, err := server.ProcessConfigFile(conf)
		require.NoError(t, err)
		h.sites[name] = runTestServer(t, siteOpts)
	}
	waitUntil(t, 10*time.Second, "every site joined the hub", func() bool { return h.hub.NumLeafNodes() == len(sites) })
	return h
}

// connect connects to the hub as a user nats-auth made (admin, gateway, ...).
func (h *natsAuthHub) connect(t *testing.T, user string) *nats.Conn {
	t.Helper()
	c, err := broker.ReadNATSContext(filepath.Join(h.dir, user+".json"))
	require.NoError(t, err)
	nc, err := nats.Connect(h.hub.ClientURL(), nats.UserInfo(c.User, c.Password), nats.CustomInboxPrefix(c.InboxPrefix))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// connectSite connects to a site's own server, as anyone there may.
func (h *natsAuthHub) connectSite(t *testing.T, site string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(h.sites[site].ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// A site's leaf user takes the hub's requests for the site's own nodes only: a client of site
// s1's server that listens to every node's requests (what the QA's `nats sub
// 'corral.v1.node.*.*'` did) hears the hub's requests for s1's node nA, never those for s2's
// nB, while s2 answers them. Before, the leaf user took corral.v1.node.*.* for every site.
func TestSiteTakesOnlyItsOwnNodesRequests(t *testing.T) {
	h := startNATSAuthHub(t, "s1=nA", "s2=nB")
	requireSiteTakesOnlyItsNodesRequests(t, h.connect(t, "admin"), h.connectSite(t, "s1"), h.connectSite(t, "s2"))
	assert.Equal(t, 2, h.hub.NumLeafNodes(), "a site's link dropped")
}

// requireSiteTakesOnlyItsNodesRequests requires that s1, a client of site s1's server that
// listens to every node's requests, hears admin's requests (at the hub) for s1's node nA and
// never those for s2's nB, which s2, a client of site s2's, answers.
func requireSiteTakesOnlyItsNodesRequests(t *testing.T, admin, s1, s2 *nats.Conn) {
	t.Helper()
	heard := make(chan *nats.Msg, 1000)
	for _, subj := range []string{fmt.Sprintf(broker.NodeGroupT, "*") + ".*", broker.Prefix + ".node.>"} {
		_, err := s1.ChanSubscribe(subj, heard)
		require.NoError(t, err)
	}
	_, err := s2.Subscribe(fmt.Sprintf(broker.NodeGroupT, "nB")+".*", func(m *nats.Msg) { _ = m.Respond([]byte("nB")) })
	require.NoError(t, err)
	require.NoError(t, s2.Flush())

	nBTask := fmt.Sprintf(broker.NodeGroupT, "nB") + "." + broker.EndpointTask
	waitUntil(t, 10*time.Second, "s2's nB answers the hub", func() bool {
		m, err := admin.Request(nBTask, []byte("ping"), time.Second)
		return err == nil && string(m.Data) == "nB"
	})
	// A request for nB, with what a caller typed, then one for nA: both cross from the hub on
	// one path, in order, so that s1 has heard the first (if it may) once it hears the second.
	nATask := fmt.Sprintf(broker.NodeGroupT, "nA") + "." + broker.EndpointTask
	waitUntil(t, 10*time.Second, "s1 hears the hub's requests for nA", func() bool {
		require.NoError(t, admin.PublishRequest(nBTask, "_INBOX_admin.x", []byte(`{"text":"hunter2"}`)))
		require.NoError(t, admin.Publish(nATask, []byte("for nA")))
		for {
			select {
			case m := <-heard:
				require.NotEqual(t, nBTask, m.Subject, "site s1 received the hub's request for s2's node nB: %s", m.Data)
				if m.Subject == nATask {
					return true
				}
			case <-time.After(200 * time.Millisecond):
				return false
			}
		}
	})
}

// A site speaks as its own nodes only: a heartbeat (or progress, or a frame) s1 sends as s2's
// node nB never reaches the hub's gateways, which would take nB as alive at the wrong site; s1's
// own nA's do, and its link stays up (its server keeps nB's to itself: the hub told it what it
// may send).
func TestSiteCannotSpeakAsAnotherSitesNode(t *testing.T) {
	h := startNATSAuthHub(t, "s1=nA", "s2=nB")
	got := make(chan *nats.Msg, 1000)
	gateway := h.connect(t, "gateway")
	for _, subj := range []string{broker.Heartbeats, broker.Progresses, broker.Frames} {
		_, err := gateway.ChanSubscribe(subj, got)
		require.NoError(t, err)
	}
	require.NoError(t, gateway.Flush())
	s1 := h.connectSite(t, "s1")
	forged := []string{fmt.Sprintf(broker.HeartbeatT, "nB"), fmt.Sprintf(broker.ProgressT, "nB", "t1"), fmt.Sprintf(broker.FramesT, "nB", "d1")}
	own := fmt.Sprintf(broker.HeartbeatT, "nA")
	waitUntil(t, 10*time.Second, "the hub hears s1's nA", func() bool {
		for _, subj := range forged {
			require.NoError(t, s1.Publish(subj, []byte("{}")))
		}
		require.NoError(t, s1.Publish(own, []byte("{}")))
		for {
			select {
			case m := <-got:
				require.NotContains(t, forged, m.Subject, "the hub took s1's message as s2's node nB")
				if m.Subject == own {
					return true
				}
			case <-time.After(200 * time.Millisecond):
				return false
			}
		}
	})
	assert.Equal(t, 2, h.hub.NumLeafNodes(), "a site's link dropped")
}

// A site's own node works across the link as before: corral node nA at s1 answers the hub's
// admin (corral drain --status's request).
func TestSitesOwnNodeAnswersTheHub(t *testing.T) {
	h := startNATSAuthHub(t, "s1=nA", "s2=nB")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runNode(ctx, []string{"--nats-url", h.sites["s1"].ClientURL(), "--node-id", "nA", "--sim", "1", "--adb", "off",
			"--usbmuxd", "off", "--metrics", "", "--log-level", "error"})
	}()
	t.Cleanup(func() { cancel(); <-done })
	admin := h.connect(t, "admin")
	var last error
	waitUntil(t, 20*time.Second, "nA answers the hub's drain status", func() bool {
		select {
		case err := <-done:
			require.FailNow(t, "corral node stopped", "%v", err)
		default:
		}
		_, last = broker.DrainNode(t.Context(), admin, "nA", broker.DrainRequest{Action: broker.DrainStatus})
		return last == nil
	}, &last)
}

// waitUntil polls cond until it holds, failing the test after timeout (with *why, if given).
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool, why ...*error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			if len(why) > 0 && *why[0] != nil {
				t.Fatalf("not within %s: %s: %v", timeout, what, *why[0])
			}
			t.Fatalf("not within %s: %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
