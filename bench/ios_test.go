package bench

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios"
	"github.com/corral-farm/corral/nodes/ios/wda"
	"github.com/corral-farm/corral/nodes/tools"
)

// BenchmarkIOS drives a simulated iPhone (750x1334 at 2x) through the front door, side by
// side with WebDriverAgent's own HTTP API reached the same way (usbmux to its port 8100) on
// the same phone: a tap (target ≤ 1.3× direct) and a screenshot (≤ 1.3× WDA's /screenshot,
// the front door's as a JPEG ≤ 300 KB); and how long a plugged-in iPhone takes to show online
// and an unplugged one offline (≤ 1 s each).
func BenchmarkIOS(b *testing.B) {
	f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true, Platforms: []device.Platform{ios.Platform()}})
	if err := f.StartNodes(1, "n1"); err != nil { // n1-p1: a simulated phone in the node, the front door's floor
		b.Fatal(err)
	}
	sims := f.StartIOS("n1", 2)
	const serial = "ios-sim-01"
	f.WaitDevices(3, broker.StateOnline)
	direct := directWDA(b, sims, serial)
	c := httpClient(b, f, "bench-ios")
	lease := leaseHandle(b, c, map[string]any{"serial": serial})
	defer func() { _, _ = call(c, "release_device", map[string]any{"lease": lease}) }()
	floorLease := leaseHandle(b, c, map[string]any{"serial": "n1-p1"})
	defer func() { _, _ = call(c, "release_device", map[string]any{"lease": floorLease}) }()
	ctx := context.Background()
	// Each side by side with its floor: a tap through the front door to a phone inside the node
	// (what the front door costs whatever the device), and the PNG decoded and encoded as JPEG
	// (what WDA's PNG costs to deliver as JPEG).
	b.Run("op=tap", func(b *testing.B) {
		st, err := direct.Status(ctx)
		if err != nil || st.SessionID == "" {
			b.Fatalf("no WDA session to tap on: %+v %v", st, err)
		}
		sid := st.SessionID
		var gw, dir, floor []time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := call(c, "tap_xy", map[string]any{"serial": "n1-p1", "lease": floorLease, "x": 0.5, "y": 0.9}); err != nil {
				b.Fatal(err)
			}
			floor = append(floor, time.Since(start))
			start = time.Now()
			if _, err := call(c, "tap_xy", map[string]any{"serial": serial, "lease": lease, "x": 0.5, "y": 0.9}); err != nil {
				b.Fatal(err)
			}
			gw = append(gw, time.Since(start))
			start = time.Now()
			if err := direct.tap(ctx, sid, 187.5, 600); err != nil {
				b.Fatal(err)
			}
			dir = append(dir, time.Since(start))
		}
		reportSideBySide(b, gw, dir)
		reportFloor(b, gw, dir, floor)
	})
	b.Run("op=screenshot", func(b *testing.B) {
		var gw, dir, floor []time.Duration
		size := 0
		for b.Loop() {
			start := time.Now()
			res, err := call(c, "screenshot", map[string]any{"serial": serial, "lease": lease})
			if err != nil {
				b.Fatal(err)
			}
			gw = append(gw, time.Since(start))
			jpg, _ := farmtest.Image(res)
			size = max(size, len(jpg))
			start = time.Now()
			shot, err := direct.Screenshot(ctx) // session-less: GET /screenshot
			if err != nil {
				b.Fatal(err)
			}
			dir = append(dir, time.Since(start))
			start = time.Now()
			img, err := png.Decode(bytes.NewReader(shot))
			if err == nil {
				_, err = tools.EncodeJPEG(ctx, img, tools.MaxImageBytes)
			}
			if err != nil {
				b.Fatal(err)
			}
			floor = append(floor, time.Since(start))
		}
		reportSideBySide(b, gw, dir)
		reportFloor(b, gw, dir, floor)
		b.ReportMetric(float64(size)/1024, "jpeg-KB")
	})
	b.Run("op=plug", func(b *testing.B) {
		const other = "ios-sim-02"
		waitState(b, f.Registry, other, broker.StateOnline)
		dev := sims.Devices()[1].Device
		var attach, detach []time.Duration
		for b.Loop() {
			start := time.Now()
			sims.Host.Detach(other)
			waitState(b, f.Registry, other, broker.StateOffline)
			detach = append(detach, time.Since(start))
			start = time.Now()
			sims.Host.Attach(dev)
			waitState(b, f.Registry, other, broker.StateOnline)
			attach = append(attach, time.Since(start))
		}
		slices.Sort(attach)
		slices.Sort(detach)
		b.ReportMetric(float64(percentile(attach, 0.5).Milliseconds()), "attach-p50-ms")
		b.ReportMetric(float64(percentile(attach, 1).Milliseconds()), "attach-max-ms")
		b.ReportMetric(float64(percentile(detach, 0.5).Milliseconds()), "detach-p50-ms")
		b.ReportMetric(float64(percentile(detach, 1).Milliseconds()), "detach-max-ms")
	})
}

// reportFloor reports the floor's p50 and the ratio of the front door's p50 over direct's and
// the floor's together.
func reportFloor(b *testing.B, gw, dir, floor []time.Duration) {
	slices.Sort(floor)
	f := percentile(floor, 0.5)
	b.ReportMetric(float64(f.Microseconds()), "floor-p50-µs")
	b.ReportMetric(float64(percentile(gw, 0.5))/float64(percentile(dir, 0.5)+f), "floor-ratio")
}

// rawWDA is WebDriverAgent's HTTP API on one phone, reached as the driver reaches it (usbmux
// to port 8100) with nothing of Corral in between: taps go on the session the driver made
// (WDA keeps one session; a second would end the driver's).
type rawWDA struct {
	*wda.Client
	hc   *http.Client
	base string
}

// tap posts a tap to the session sid, as a client of WDA's HTTP API does, and reads the answer.
func (w rawWDA) tap(ctx context.Context, sid string, x, y float64) error {
	body := fmt.Sprintf(`{"x":%g,"y":%g}`, x, y)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.base+"/session/"+sid+"/wda/tap", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("WDA tap: %s: %s", resp.Status, answer)
	}
	return err
}

func directWDA(b *testing.B, sims *ios.Sims, serial string) rawWDA {
	mux := ios.ParseMux(sims.Addr())
	list, err := mux.List(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	id := -1
	for _, e := range list {
		if e.Properties.SerialNumber == serial {
			id = e.DeviceID
		}
	}
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return mux.Connect(ctx, id, ios.DefaultWDAPort)
	}}
	b.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	base := "http://" + serial + ":8100"
	return rawWDA{Client: wda.New(base, hc), hc: hc, base: base}
}
