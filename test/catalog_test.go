package test

import (
	"context"
	"image"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// Android's drivers have every optional ability: android.Platform() declares no gaps, so
// tools.ToolPlatforms names android among the platforms that can serve any tool.
var (
	_ everyAbility = (*android.Driver)(nil)
	_ everyAbility = (*sim.Phone)(nil)
)

type everyAbility interface {
	device.Capable
	device.HealthChecker
	device.Closer
}

// ownNode starts an extra node on the farm's NATS with passcodes configured and logs at debug
// level into logs; it stops with the test.
func ownNode(t *testing.T, f *farmtest.Farm, id, passcodes string, log *slog.Logger) *nodes.Node {
	t.Helper()
	book, err := tools.ParsePasscodes([]byte(passcodes))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "node-" + id}, log)
	if err != nil {
		t.Fatal(err)
	}
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := nodes.Start(context.Background(), nodes.Config{ID: id, NC: nc, Stores: stores, Log: log,
		Metrics: actors.NewMetrics(prometheus.NewRegistry()), Ops: tools.DefaultOpsWith(tools.OpsConfig{Passcodes: book})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Stop)
	return n
}

// ownGateway starts an extra gateway on the farm's NATS logging into log, and returns an MCP
// client of it.
func ownGateway(t *testing.T, f *farmtest.Farm, log *slog.Logger) *client.Client {
	t.Helper()
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "gateway-own"}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	_, url := serveGateway(t, nc, log, mcp.Options{})
	return mcpClient(t.Context(), t, url, "unlocker")
}

// sniff records every message on the farm's NATS (subjects, headers and payloads): task
// requests and results, events, KV writes, JetStream API traffic.
func sniff(t *testing.T, f *farmtest.Farm) *logtest.Buffer {
	t.Helper()
	nc, err := nats.Connect(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	var buf logtest.Buffer
	if _, err := nc.Subscribe(">", func(m *nats.Msg) {
		_, _ = buf.Write([]byte(m.Subject + " " + string(m.Data) + "\n"))
		for k, v := range m.Header {
			_, _ = buf.Write([]byte(k + ": " + strings.Join(v, ",") + "\n"))
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

func waitOnline(t *testing.T, f *farmtest.Farm, serials ...string) {
	t.Helper()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		for _, s := range serials {
			if d, ok := f.Gateway().Client.Device(s); !ok || d.State != broker.StateOnline {
				return false
			}
		}
		return true
	}, "devices %v online", serials)
}

// A locked simulated phone unlocks through the MCP front door: with its own passcode when the
// node has none for it, and with the node's when it has; a wrong one fails clearly. No
// passcode shows in any log, any NATS message (task requests, results, records, KV) or any
// result, get_task_result's record included.
func TestCatalogUnlockPhoneKeepsThePasscodeSecret(t *testing.T) {
	const own, configured, wrong = "9081726354", "5647382910", "8642013579"
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	traffic := sniff(t, f)
	var logs logtest.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	n := ownNode(t, f, "pc", `pc-conf: "`+configured+`"`+"\npc-wrong: \""+wrong+"\"\n", log)
	phones := map[string]*sim.Phone{
		"pc-own":   sim.New("pc-own", sim.WithPasscode(own)),
		"pc-conf":  sim.New("pc-conf", sim.Locked(), sim.WithPasscode(configured)),
		"pc-wrong": sim.New("pc-wrong", sim.Locked()),
	}
	for _, p := range phones {
		n.AddDriver(p)
	}
	waitOnline(t, f, "pc-own", "pc-conf", "pc-wrong")
	c := ownGateway(t, f, log)

	// Lock it through the front door, then unlock it: the phone's own passcode.
	farmtest.MustCall(t, c, "press_button", args("serial", "pc-own", "button", "POWER"))
	if st, _ := phones["pc-own"].Status(t.Context()); st["locked"] != "true" {
		t.Fatal("POWER did not lock the phone")
	}
	var res tools.UnlockResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "unlock_phone", args("serial", "pc-own")), &res)
	if !res.Unlocked || !res.Verified || !res.PasscodeEntered || !strings.Contains(res.Hint, "peek") {
		t.Fatalf("unlock_phone: %+v", res)
	}
	if fg, _ := phones["pc-own"].ForegroundApp(t.Context()); fg != "com.corral.launcher" {
		t.Fatalf("after unlock_phone the phone shows %s", fg)
	}
	// The record of that task, as get_latest_task and get_task_result return it.
	latest := farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true))
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, latest, &rec)
	if rec.Tool != "unlock_phone" || rec.Status != broker.OutcomeSucceeded || rec.Serial != "pc-own" {
		t.Fatalf("latest task %+v", rec)
	}
	record := farmtest.MustCall(t, c, "get_task_result", args("task_id", rec.TaskID))

	// The node's passcode for the device, and its own entry overrides what the phone knows.
	farmtest.MustCall(t, c, "unlock_phone", args("serial", "pc-conf"))
	wrongRes := farmtest.Call(t, c, "unlock_phone", args("serial", "pc-wrong"))
	if !wrongRes.IsError {
		t.Fatal("a wrong passcode unlocked the phone")
	}
	contains(t, farmtest.Text(wrongRes), "still locked: wrong passcode?", "Do not retry", "pc-wrong", "--passcodes")
	if st, _ := phones["pc-wrong"].Status(t.Context()); st["locked"] != "true" {
		t.Fatal("pc-wrong is unlocked")
	}

	// Nothing outside the phones has seen a passcode; the phones have (they were typed).
	seen := logs.String() + traffic.String() + farmtest.Text(latest) + farmtest.Text(record) + farmtest.Text(wrongRes)
	for _, code := range []string{own, configured, wrong} {
		if i := strings.Index(seen, code); i >= 0 {
			t.Fatalf("passcode %s leaked: …%s…", code, seen[max(0, i-200):min(len(seen), i+50)])
		}
	}
	if !strings.Contains(traffic.String(), ".task") || !strings.Contains(traffic.String(), "unlock_phone") {
		t.Fatal("the sniffer saw no task traffic: the check above proves nothing")
	}
	if !slices.Contains(phones["pc-own"].InputLog(), `text "`+own+`"`) {
		t.Fatalf("the passcode was not typed: %q", phones["pc-own"].InputLog())
	}
}

// get_latest_task {"anyTool": true} returns the second of two calls, across a gateway restart too; another
// client has its own latest task, and a protocol session its own.
func TestCatalogLatestTaskSurvivesGatewayRestart(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	farmtest.MustCall(t, c, "tap_xy", args("serial", serial, "x", 0.5, "y", 0.5))
	farmtest.MustCall(t, c, "home", args("serial", serial))
	latest := func(c *client.Client, extra ...any) mcp.TaskRecordResult {
		t.Helper()
		var rec mcp.TaskRecordResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args(append(extra, "anyTool", true)...)), &rec)
		return rec
	}
	first := latest(c, "includeSteps", false)
	if first.Tool != "home" || first.Serial != serial || first.TaskID == "" {
		t.Fatalf("latest task %+v, want the home call", first)
	}
	f.StopGateway()
	f.StartGateway()
	again := latest(f.Client("agent"))
	if again.TaskID != first.TaskID {
		t.Fatalf("after a gateway restart the latest task is %s, want %s", again.TaskID, first.TaskID)
	}
	contains(t, farmtest.Text(farmtest.Call(t, f.Client("someone-else"), "get_latest_task", args("anyTool", true))), "No task yet")

	legacy := f.ClientWithProtocol("legacy-agent", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	farmtest.MustCall(t, legacy, "back", args("serial", serial))
	if rec := latest(legacy); rec.Tool != "back" {
		t.Fatalf("the session's latest task is %+v", rec)
	}
	if rec := latest(f.Client("agent")); rec.TaskID != first.TaskID {
		t.Fatalf("another session's call became agent's latest: %+v", rec)
	}
}

// close_popups closes a simulated phone's popup and reports 1; on a clean screen, 0.
func TestCatalogClosePopups(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	farmtest.MustCall(t, c, "app_launch", args("serial", serial, "packageName", "com.corral.weather"))
	f.Phone(serial).ShowPopup("Allow Weather to send you notifications?", "Don't allow", "Not now")
	var res tools.ClosePopupsResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "close_popups", args("serial", serial)), &res)
	if res.PopupsClosed != 1 || !strings.Contains(res.Message, `"Not now"`) {
		t.Fatalf("close_popups: %+v", res)
	}
	if _, open := f.Phone(serial).Popup(); open {
		t.Fatal("the popup is still open")
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "close_popups", args("serial", serial)), &res)
	if res.PopupsClosed != 0 || !strings.Contains(res.Message, "no popup found") {
		t.Fatalf("clean screen: %+v", res)
	}
	if fg, _ := f.Phone(serial).ForegroundApp(t.Context()); fg != "com.corral.weather" {
		t.Fatalf("close_popups left the app: %s in front", fg)
	}
}

// iosDriver is a driver of a platform Corral has no driver for yet: only the abilities every
// driver has. iosPlatform registers it with the tools it cannot serve that the test calls.
type iosDriver struct{}

var iosPlatform = device.Platform{Name: device.PlatformIOS, Gaps: []string{"back", "unlock_phone", "close_popups", "input"}}

func (iosDriver) Info() device.Info {
	return device.Info{Serial: "00008101-TEST", Platform: device.PlatformIOS, Model: "iPhone"}
}
func (iosDriver) ScreenSize(context.Context) (device.Size, error) {
	return device.Size{Width: 1170, Height: 2532}, nil
}
func (iosDriver) Screenshot(context.Context) (image.Image, error) {
	return image.NewGray(image.Rect(0, 0, 117, 253)), nil
}
func (iosDriver) Tap(context.Context, device.Point, time.Duration) error { return nil }

// A tool the device's driver cannot serve says which tool, on which platform, and which
// platforms can, with how many devices of theirs the farm has; nothing ran.
func TestCatalogUnsupportedNamesWhoCan(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Platforms: []device.Platform{android.Platform(), iosPlatform}})
	ownNode(t, f, "ios", "", slog.New(slog.DiscardHandler)).AddDriver(iosDriver{})
	waitOnline(t, f, "00008101-TEST")
	c := f.Client("agent")
	for _, tool := range []string{"back", "unlock_phone", "close_popups", "input"} {
		a := args("serial", "00008101-TEST")
		if tool == "input" {
			a["text"] = "hi"
		}
		res := farmtest.Call(t, c, tool, a)
		if !res.IsError {
			t.Fatalf("%s on an iOS device without the ability succeeded", tool)
		}
		contains(t, farmtest.Text(res), tool+" is not supported on ios devices; platforms that can: android (2 in this farm)",
			"refused (unsupported)", "00008101-TEST (ios) cannot")
	}
	farmtest.MustCall(t, c, "tap_xy", args("serial", "00008101-TEST", "x", 0.5, "y", 0.5)) // what it can do, it does
}

// unlock_phone and close_popups on a simulated Android device land as adb input commands,
// through the real adb server.
func TestCatalogUnlockAndClosePopupsOnAndroid(t *testing.T) {
	tool(t, "adb")
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	n := ownNode(t, f, "droid", `"*": "1234"`, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	// Input devices denied: unlock's touches and keys land as `input` commands to check.
	sims, err := adbsim.Start(ctx, 1, "127.0.0.1:0", adbsim.WithInputDevicesDenied())
	if err != nil {
		t.Fatal(err)
	}
	adb, err := android.StartPrivateServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	attached := make(chan struct{})
	go func() {
		defer close(attached)
		_ = android.Attach(ctx, n, adb.Addr(), nil)
	}()
	t.Cleanup(func() { cancel(); <-attached; adb.Stop(); _ = sims.Close() })
	d := sims.Devices()[0]
	if err := adb.Connect(ctx, d.Addr()); err != nil {
		t.Fatal(err)
	}
	waitOnline(t, f, d.Serial())
	c := f.Client("agent")
	s := d.Serial()

	farmtest.MustCall(t, c, "press_button", args("serial", s, "button", "POWER"))
	before := len(d.Commands())
	var res tools.UnlockResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "unlock_phone", args("serial", s)), &res)
	if !res.Unlocked || !res.Verified || !res.PasscodeEntered {
		t.Fatalf("unlock_phone: %+v", res)
	}
	var inputs []string
	for _, cmd := range d.Commands()[before:] {
		if strings.HasPrefix(cmd, "input ") {
			inputs = append(inputs, cmd)
		}
	}
	want := []string{"input keyevent KEYCODE_WAKEUP", "input swipe 540 1919 540 720 300", "input text '1234'", "input keyevent KEYCODE_ENTER"}
	if !slices.Equal(inputs, want) {
		t.Fatalf("unlock_phone sent %q, want %q", inputs, want)
	}
	if fg, _ := d.Phone().ForegroundApp(t.Context()); fg != "com.corral.launcher" {
		t.Fatalf("after unlock_phone the device shows %s", fg)
	}

	d.Phone().ShowPopup("Update available", "Later", "Update")
	before = len(d.Commands())
	var closed tools.ClosePopupsResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "close_popups", args("serial", s)), &closed)
	if closed.PopupsClosed != 1 || !strings.Contains(closed.Message, `"Later"`) {
		t.Fatalf("close_popups: %+v", closed)
	}
	taps := 0
	for _, cmd := range d.Commands()[before:] {
		if strings.HasPrefix(cmd, "input tap ") {
			taps++
		}
	}
	if _, open := d.Phone().Popup(); open || taps != 1 {
		t.Fatalf("popup open %v after %d taps (%q)", open, taps, d.Commands()[before:])
	}
}

// corral node refuses a bad passcodes file at start, saying where, not what.
func TestCatalogPasscodesFlagRefusesBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passcodes.yaml")
	if err := os.WriteFile(path, []byte("\"*\": \"1234\"\nemulator-5554: \"12 34 56\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCorral(t, "node", "--passcodes", path, "--nats-url", "nats://127.0.0.1:1", "--metrics", "")
	if err == nil {
		t.Fatalf("corral node started with a bad passcodes file:\n%s", out)
	}
	contains(t, out, "--passcodes", path, "line 2", `"emulator-5554"`, "printable ASCII without spaces")
	if strings.Contains(out, "12 34 56") || strings.Contains(out, "1234") {
		t.Fatalf("the error quotes a passcode:\n%s", out)
	}
}
