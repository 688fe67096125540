package test

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios"
	"github.com/corral-farm/corral/nodes/ios/wdasim"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// iosFarm is a farm of one node with a simulated Android phone and n simulated iPhones, online.
func iosFarm(t *testing.T, n int) (*farmtest.Farm, *ios.Sims) {
	t.Helper()
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), ios.Platform()}})
	sims := f.StartIOS("n1", n)
	for _, d := range sims.Devices() {
		waitOnline(t, f, d.UDID())
	}
	return f, sims
}

// Simulated iPhones through the front door: the catalog's tools act on the phone behind
// WebDriverAgent, as the phone itself records; tools iOS cannot serve name the platforms that
// can; apps install from an .ipa through AFC and installation_proxy.
func TestIOSThroughTheFrontDoor(t *testing.T) {
	f, sims := iosFarm(t, 1)
	c := f.Client("agent")
	const serial = "ios-sim-01"
	phone := sims.Devices()[0].Phone

	res := farmtest.MustCall(t, c, "list_available_devices", args("platform", "ios"))
	contains(t, farmtest.Text(res), serial, `"platform":"ios"`, `"iosDevices":["ios-sim-01"]`)

	x, y := centreOf(t, c, serial, "", "Notes")
	farmtest.MustCall(t, c, "tap_xy", args("serial", serial, "x", x, "y", y))
	app, err := phone.ForegroundApp(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "com.corral.notes", app, "a tap on the Notes icon opens Notes")
	res = farmtest.MustCall(t, c, "get_foreground_app", args("serial", serial))
	contains(t, farmtest.Text(res), "com.corral.notes")

	farmtest.MustCall(t, c, "home", args("serial", serial))
	farmtest.MustCall(t, c, "app_launch", args("serial", serial, "packageName", "com.corral.settings"))
	app, _ = phone.ForegroundApp(t.Context())
	assert.Equal(t, "com.corral.settings", app)
	farmtest.MustCall(t, c, "swipe_direction", args("serial", serial, "direction", "up"))

	farmtest.MustCall(t, c, "send_to_clipboard", args("serial", serial, "text", "from the farm"))
	assert.Equal(t, "from the farm", phone.Clipboard(), "send_to_clipboard through WebDriverAgent's pasteboard")

	res = farmtest.MustCall(t, c, "screenshot", args("serial", serial))
	data, mime := farmtest.Image(res)
	assert.Equal(t, "image/jpeg", mime)
	assert.LessOrEqual(t, len(data), 300<<10, "a screenshot is at most 300 KB")
	contains(t, farmtest.Text(res), "750", "1334")

	// No BACK on an iPhone: the refusal names the platforms that have it.
	res, err = farmtest.TryCall(t, c, "back", args("serial", serial))
	require.NoError(t, err)
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "platforms that can: android")
	// No input methods or app data to clear on an iPhone either.
	for _, tool := range []struct {
		name string
		args map[string]any
	}{{"set_ime", args("serial", serial, "ime", "com.apple.keyboard")}, {"app_clear", args("serial", serial, "packageName", "com.corral.notes")}} {
		res, err = farmtest.TryCall(t, c, tool.name, tool.args)
		require.NoError(t, err)
		require.True(t, res.IsError, farmtest.Text(res))
		contains(t, farmtest.Text(res), "platforms that can: android")
	}

	ipa := filepath.Join(t.TempDir(), "Hello.ipa")
	writeIPA(t, ipa, "org.example.hello")
	farmtest.MustCall(t, c, "app_install", args("serial", serial, "appUrl", ipa))
	res = farmtest.MustCall(t, c, "list_packages", args("serial", serial))
	contains(t, farmtest.Text(res), "org.example.hello", "com.corral.notes")
	farmtest.MustCall(t, c, "app_uninstall", args("serial", serial, "packageName", "org.example.hello"))
	res = farmtest.MustCall(t, c, "list_packages", args("serial", serial))
	assert.NotContains(t, farmtest.Text(res), "org.example.hello")

	res = farmtest.MustCall(t, c, "get_device_status", args("serial", serial))
	contains(t, farmtest.Text(res), `"developer_mode":"true"`, `"name":"Corral iPhone 01"`, `"release":"16.7.2"`)

	// WebDriverAgent killed: restarted, the next call works, and /metrics counts the restart.
	sims.Devices()[0].Unhandle(ios.DefaultWDAPort)
	farmtest.Eventually(t, 10*time.Second, func() bool {
		res, err := farmtest.TryCall(t, c, "get_foreground_app", args("serial", serial))
		return err == nil && !res.IsError
	}, "calls work again after WebDriverAgent was killed")
	assert.GreaterOrEqual(t, deviceGauge(t, f, serial, "wda_restarts"), 1.0, "corral_device_reading wda_restarts")
	assert.Equal(t, 1.0, deviceGauge(t, f, serial, "wda_up"))
}

// An iPhone unplugged mid-call: the call fails with "device disconnected" and the device goes
// offline at once.
func TestIOSDetachFailsTheCallInFlight(t *testing.T) {
	f, sims := iosFarm(t, 1)
	c := f.Client("agent")
	d := sims.Devices()[0]
	d.WDA().SetFault(wdasim.FaultHang)
	call := farmtest.Go(t, c, "tap_xy", args("serial", d.UDID(), "x", 0.5, "y", 0.5))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device(d.UDID())
		return ok && e.State == broker.StateBusy
	}, "the tap running")
	start := time.Now()
	sims.Host.Detach(d.UDID())
	res := (<-call).Get(t)
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "device disconnected")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device(d.UDID())
		return ok && e.State == broker.StateOffline
	}, "the iPhone offline")
	t.Logf("unplugged to offline and the call answered: %s", time.Since(start).Round(time.Millisecond))
}

// `corral up --sim-ios 1` puts a simulated iPhone in the farm, as the README says.
func TestCorralUpSimIOS(t *testing.T) {
	url := corralUp(t, "--sim", "0", "--adb", "off", "--usbmuxd", "off", "--sim-ios", "1")
	farmtest.Eventually(t, 30*time.Second, func() bool {
		out, err := runCorral(t, "devices", "--gateway", url)
		return err == nil && strings.Contains(out, "ios-sim-local-01") && strings.Contains(out, "online")
	}, "the simulated iPhone online, named after its node")
	b, _ := json.Marshal(map[string]any{"serial": "ios-sim-local-01", "x": 0.5, "y": 0.5})
	out, err := runCorral(t, "call", "--gateway", url, "tap_xy", string(b))
	require.NoError(t, err, out)
}

// writeIPA writes an .ipa holding an app with bundle id id.
func writeIPA(t *testing.T, path, id string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	z := zip.NewWriter(f)
	w, err := z.Create("Payload/Hello.app/Info.plist")
	require.NoError(t, err)
	_, err = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>` +
		id + `</string><key>CFBundleName</key><string>Hello</string><key>CFBundleShortVersionString</key><string>1.0</string></dict></plist>`))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	require.NoError(t, f.Close())
}

// unlock_phone on a locked iPhone types the node's passcode for it on the PIN pad, through
// WebDriverAgent; a wrong one says so.
func TestIOSUnlockPhone(t *testing.T) {
	book, err := tools.ParsePasscodes([]byte(`"ios-sim-01": "` + sim.DefaultPasscode + `"` + "\n" + `"ios-sim-02": "0000"`))
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Passcodes: book, Platforms: []device.Platform{android.Platform(), ios.Platform()}})
	sims := f.StartIOS("n1", 2)
	waitOnline(t, f, "ios-sim-01", "ios-sim-02")
	c := f.Client("agent")
	locked := func(p *sim.Phone) bool {
		st, err := p.Status(t.Context())
		require.NoError(t, err)
		return st["locked"] == "true"
	}
	for _, d := range sims.Devices() {
		require.NoError(t, d.Phone.PressKey(t.Context(), "POWER"))
		require.True(t, locked(d.Phone))
	}
	farmtest.MustCall(t, c, "unlock_phone", args("serial", "ios-sim-01"))
	assert.False(t, locked(sims.Devices()[0].Phone), "ios-sim-01 unlocked with its passcode")
	res, err := farmtest.TryCall(t, c, "unlock_phone", args("serial", "ios-sim-02"))
	require.NoError(t, err)
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "wrong passcode")
	assert.NotContains(t, farmtest.Text(res), "0000")
	assert.True(t, locked(sims.Devices()[1].Phone))
}
