package test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// taggedPhone is a simulated phone with tags of its own (a sim phone says only "sim").
type taggedPhone struct {
	*sim.Phone
	tags []string
}

func (p taggedPhone) Info() device.Info {
	i := p.Phone.Info()
	i.Tags = p.tags
	return i
}

// startNode starts node id on the farm's NATS with these drivers.
func startTaggedNode(t *testing.T, f *farmtest.Farm, id string, drivers ...device.Driver) {
	t.Helper()
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "node-" + id}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := nodes.Start(context.Background(), nodes.Config{ID: id, NC: nc, Stores: stores,
		Metrics: actors.NewMetrics(prometheus.NewRegistry()), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Stop)
	for _, d := range drivers {
		n.AddDriver(d)
	}
}

// authGateway serves a gateway with the policy file over the farm; its log (at debug level)
// is returned.
func authGateway(t *testing.T, f *farmtest.Farm, policyFile string, devices int) (string, *logtest.Buffer) {
	t.Helper()
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pol, err := mcp.LoadPolicy(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "auth-gateway"}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	c, url := serveGateway(t, nc, log, mcp.Options{Policy: pol})
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Devices()) == devices }, "the gateway sees %d devices", devices)
	return url, logs
}

// authClient connects to url with a bearer token (none if empty).
func authClient(t *testing.T, url, name, token string) (*client.Client, error) {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return nil, err
	}
	return c, nil
}

// A real farm behind a gateway with a policy file: no token or a wrong one gets 401; a
// read-only principal and a principal limited to one pool are refused, naming the rule, and
// their refused calls touch no device and take no lease; tokens stay out of the log.
func TestAuthPolicyOnRealFarm(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	pool := sim.New("pool-p1")
	startTaggedNode(t, f, "pool", taggedPhone{Phone: pool, tags: []string{"sim", "pool-b"}})

	const ciToken, viewerToken = "ci-6f1e2d3c4b5a69788796a5b4", "viewer-0a1b2c3d4e5f60718293"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ci.token"), []byte(ciToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(viewerToken))
	policy := "principals:\n" +
		"  - name: ci\n    token_file: ci.token\n    tags: [pool-b]\n    tools: [all]\n" +
		"  - name: viewer\n    token_sha256: " + hex.EncodeToString(sum[:]) + "\n    tools: [readonly]\n"
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	url, logs := authGateway(t, f, policyFile, 3)

	for _, token := range []string{"", "not-a-token-of-this-farm-0000"} {
		if _, err := authClient(t, url, "stranger", token); err == nil {
			t.Fatalf("token %q: connected", token)
		}
	}

	untouched := func(serial string) {
		t.Helper()
		if got := f.Phone(serial).InputLog(); len(got) != 0 {
			t.Fatalf("%s was touched: %q", serial, got)
		}
		for _, d := range f.Devices() {
			if d.Serial == serial && (d.State != broker.StateOnline || d.Holder != "") {
				t.Fatalf("%s is %s, held by %q", serial, d.State, d.Holder)
			}
		}
	}

	viewer, err := authClient(t, url, "dashboard", viewerToken)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := viewer.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
			t.Errorf("viewer sees %s, which is not read-only", tool.Name)
		}
	}
	res := farmtest.Call(t, viewer, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5))
	if !res.IsError {
		t.Fatal("viewer tapped")
	}
	contains(t, farmtest.Text(res), `denied by policy: principal "viewer" may not call tap_xy (rule: tools [readonly])`)
	untouched("n1-p1")
	farmtest.MustCall(t, viewer, "get_screen_size", args("serial", "n1-p1")) // what it may call works

	ci, err := authClient(t, url, "pipeline", ciToken)
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ AndroidDevices []string }
	farmtest.Structured(t, farmtest.MustCall(t, ci, "list_available_devices", nil), &list)
	if !slices.Equal(list.AndroidDevices, []string{"pool-p1"}) {
		t.Fatalf("ci sees %v, want only pool-p1", list.AndroidDevices)
	}
	res = farmtest.Call(t, ci, "tap_xy", args("serial", "n1-p2", "x", 0.5, "y", 0.5))
	if !res.IsError {
		t.Fatal("ci tapped a device outside its pool")
	}
	contains(t, farmtest.Text(res), `denied by policy: principal "ci" may not use device n1-p2 (rule: tags [pool-b]`)
	untouched("n1-p2")

	l := acquire(t, ci, args())
	if l.Lease.Serial != "pool-p1" || l.Lease.Holder != "ci (pipeline)" {
		t.Fatalf("ci leased %s as %q; want pool-p1 as ci (pipeline)", l.Lease.Serial, l.Lease.Holder)
	}
	farmtest.MustCall(t, ci, "tap_xy", args("serial", "pool-p1", "lease", l.Lease.Handle, "x", 0.5, "y", 0.5))
	if got := pool.InputLog(); len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "tap ") {
		t.Fatalf("pool-p1's input log does not end with the tap: %q", got)
	}
	farmtest.MustCall(t, ci, "release_device", args("serial", "pool-p1", "lease", l.Lease.Handle))

	// Knowing another holder's lease handle lets ci abort nothing outside its pool, and it is
	// denied as under a handle no lease has (29c99e0: it was told "No task is currently
	// running", false, and unlike a bogus handle's answer). The holder itself can.
	other := f.Client("other-team")
	held := acquire(t, other, args("serial", "n1-p1"))
	sleeping := farmtest.Go(t, other, "sleep", args("serial", "n1-p1", "lease", held.Lease.Handle, "seconds", 30))
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device("n1-p1")
		return d.State == broker.StateBusy
	}, "the sleep on n1-p1 running")
	res = farmtest.Call(t, ci, "abort_task", args("lease", held.Lease.Handle))
	if !res.IsError {
		t.Fatalf("ci's abort under the other team's lease was not refused: %s", farmtest.Text(res))
	}
	contains(t, farmtest.Text(res), `denied by policy: principal "ci" may not abort under this lease`)
	select {
	case a := <-sleeping:
		t.Fatalf("ci's abort by lease ended the other team's sleep: %s", farmtest.Text(a.Get(t)))
	case <-time.After(300 * time.Millisecond):
	}
	contains(t, farmtest.Text(farmtest.MustCall(t, other, "abort_task", args("lease", held.Lease.Handle))), "Aborted 1 task(s)")
	if res := (<-sleeping).Get(t); !res.IsError || !strings.Contains(farmtest.Text(res), "aborted") {
		t.Fatalf("the holder's abort: %s", farmtest.Text(res))
	}

	out := logs.String()
	if !strings.Contains(out, "refused unauthenticated request") {
		t.Fatalf("no refusal in the log:\n%s", out)
	}
	for _, secret := range []string{ciToken, viewerToken, "not-a-token-of-this-farm-0000"} {
		if strings.Contains(out, secret) {
			t.Fatalf("the gateway's log shows a token:\n%s", out)
		}
	}
}

// The operator CLI and the stdio bridge carry a token to a gateway with a policy: from
// --token-file or CORRAL_TOKEN; without one the gateway's refusal says how to pass it.
func TestAuthTokenFromCLI(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	const token = "cli-5a4b3c2d1e0f9a8b7c6d5e4f"
	dir := t.TempDir()
	sum := sha256.Sum256([]byte(token))
	policyFile := filepath.Join(dir, "policy.yaml")
	policy := "principals:\n  - name: ops\n    token_sha256: " + hex.EncodeToString(sum[:]) + "\n"
	tokenFile := filepath.Join(dir, "token")
	for file, content := range map[string]string{policyFile: policy, tokenFile: token + "\n"} {
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	url, logs := authGateway(t, f, policyFile, 1)

	out, err := runCorral(t, "devices", "--gateway", url)
	if err == nil {
		t.Fatalf("devices without a token: %s", out)
	}
	contains(t, out, "wants a bearer token", "pass --token-file FILE or set CORRAL_TOKEN")
	out, err = runCorral(t, "devices", "--gateway", url, "--token-file", tokenFile)
	if err != nil {
		t.Fatalf("devices with --token-file: %v\n%s", err, out)
	}
	contains(t, out, "n1-p1")

	c, err := client.NewStdioMCPClient(corral(t), []string{"CORRAL_TOKEN=" + token}, "mcp-stdio", "--gateway", url, "--log-level", "warn")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "stdio-auth", Version: "1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatal(err)
	}
	res := farmtest.MustCall(t, c, "get_screen_size", args("serial", "n1-p1"))
	contains(t, farmtest.Text(res), "1080")
	if strings.Contains(logs.String(), token) {
		t.Fatal("the token is in the gateway's log")
	}
}
