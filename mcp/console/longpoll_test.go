package console_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp/console"
)

// The grid's long poll over a real farm (its gateway's broker.Client, which tells its
// registry's version): it builds the grid again only when the registry or the leases moved,
// and shows every such move at once.

// consoleOver serves a console over the farm's gateway client, its long polls bounded to
// longPoll.
func consoleOver(t *testing.T, f *farmtest.Farm, longPoll time.Duration) (*console.Console, string) {
	t.Helper()
	c := console.New(console.Config{Farm: f.Gateway().Client, Metrics: console.NewMetrics(prometheus.NewRegistry())})
	console.SetLongPoll(c, longPoll)
	srv := httptest.NewServer(c)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return c, srv.URL
}

// getGrid asks for the grid, with etag in If-None-Match if not empty and ?wait=1 if wait.
func getGrid(t *testing.T, base, etag string, wait bool) (status int, newETag, body string, err error) {
	u := base + "/console/api/devices"
	if wait {
		u += "?wait=1"
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	if err != nil {
		return 0, "", "", err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("ETag"), string(b), err
}

// gridWhen waits until the grid's body satisfies cond and returns its ETag.
func gridWhen(t *testing.T, base string, cond func(body string) bool, what string) string {
	t.Helper()
	var etag string
	farmtest.Eventually(t, 15*time.Second, func() bool {
		status, tag, body, err := getGrid(t, base, "", false)
		etag = tag
		return err == nil && status == http.StatusOK && cond(body)
	}, "the grid shows %s", what)
	return etag
}

// pollResult is what a long poll answered.
type pollResult struct {
	status int
	body   string
	err    error
}

// startLongPoll starts a long poll of the grid that has etag, and returns once the poll has
// built its first grid: a change from then on happens during the poll.
func startLongPoll(t *testing.T, c *console.Console, base, etag string) <-chan pollResult {
	t.Helper()
	before := console.GridBuilds(c)
	out := make(chan pollResult, 1)
	go func() {
		status, _, body, err := getGrid(t, base, etag, true)
		out <- pollResult{status, body, err}
	}()
	farmtest.Eventually(t, 15*time.Second, func() bool { return console.GridBuilds(c) > before }, "the long poll built its grid")
	return out
}

// A long poll of a still farm's grid builds the grid once, as it starts, and not again at each
// of its looks (20 a second): neither the registry nor the leases moved. It ends with a 304.
func TestStillFarmLongPollBuildsTheGridOnce(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 3, Quiet: true})
	c, base := consoleOver(t, f, 2*time.Second)
	etag := gridWhen(t, base, func(body string) bool { return strings.Count(body, `"state":"online"`) == 6 }, "6 phones online")
	before := console.GridBuilds(c)
	status, _, body, err := getGrid(t, base, etag, true)
	if err != nil || status != http.StatusNotModified {
		t.Fatalf("the long poll of a still farm answered %d %v: %s", status, err, body)
	}
	if built := console.GridBuilds(c) - before; built != 1 {
		t.Fatalf("a long poll of a still farm built the grid %d times in 2 s; want once, as it started", built)
	}
}

// A device's change during a long poll ends it at once with the new grid, and so does a lease's
// change the registry does not carry (a caller queueing for a leased device).
func TestLongPollEndsOnADeviceOrALeaseChange(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	c, base := consoleOver(t, f, time.Minute)
	serial := f.Devices()[0].Serial

	// A device: a node comes with its phone.
	etag := gridWhen(t, base, func(body string) bool { return strings.Contains(body, `"serial":"`+serial+`"`) }, serial)
	poll := startLongPoll(t, c, base, etag)
	f.StartNode("n2", 1)
	expectGrid(t, poll, `"serial":"n2-p1"`, "a node's new phone")

	// A lease: alice (the MCP client's name) holds the phone; bob queues for it. Only the nodes'
	// leases say so.
	farmtest.MustCall(t, f.Client("alice"), "acquire_device", map[string]any{"serial": serial})
	leased := fmt.Sprintf(`"serial":"%s","platform":"android"`, serial)
	etag = gridWhen(t, base, func(body string) bool {
		return strings.Contains(body, `(alice)"`) && strings.Contains(body, `"lease_expires"`) && strings.Contains(body, leased)
	}, serial+" leased to alice")
	poll = startLongPoll(t, c, base, etag)
	bob := farmtest.Go(t, f.Client("bob"), "acquire_device", map[string]any{"serial": serial, "wait_seconds": 60})
	expectGrid(t, poll, `"queue_len":1`, "bob queued for "+serial)
	select {
	case a := <-bob:
		t.Fatalf("bob's acquire answered while alice holds the phone: %v %v", a.Result, a.Err)
	default:
	}
}

// expectGrid waits for poll's answer and checks it is a new grid containing want, well before
// the long poll's end.
func expectGrid(t *testing.T, poll <-chan pollResult, want, what string) {
	t.Helper()
	select {
	case r := <-poll:
		if r.err != nil || r.status != http.StatusOK || !strings.Contains(r.body, want) {
			t.Fatalf("after %s the long poll answered %d %v, want a grid with %s: %s", what, r.status, r.err, want, r.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("after %s the long poll did not answer in 30 s", what)
	}
}
