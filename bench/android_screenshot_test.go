package bench

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/jpeg"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// BenchmarkAndroidScreenshot times the screenshot tool on a simulated Android device
// (nodes/android/adbsim, 1080×2400) side by side with the PNG the device itself encodes, on the
// same device and private adb server, in one loop (sideBySide):
//
//   - http and inprocess: screenshot over MCP streamable HTTP and from an in-process MCP client;
//     the driver pulls the raw framebuffer and the node encodes the JPEG.
//   - http-540: screenshot with max_width 540 over HTTP, the frame scaled before encoding.
//   - exec: `screencap -p` pulled straight through the adb server (what `adb exec-out
//     screencap -p` does), the simulated device encoding a fresh PNG at Go's default
//     compression as a phone's encoder would. This is the floor.
//
// ratio-NAME is each path's p50 over exec's (target ≤ 1.0 for http and inprocess); jpeg-KB and
// jpeg540-KB are the JPEGs delivered, png-KB the device's PNG.
func BenchmarkAndroidScreenshot(b *testing.B) {
	needADB(b)
	f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true})
	if err := f.StartNodes(0, "n1"); err != nil {
		b.Fatal(err)
	}
	adb, devs := f.StartAndroid("n1", 1)
	serial := devs[0].Serial()
	farmtest.Eventually(b, 20*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device(serial)
		return ok && e.State == broker.StateOnline
	}, "android device %s online", serial)

	hc := httpClient(b, f, "bench-shot-http")
	ic := inProcessClient(b, f, "bench-shot-inprocess")
	args := map[string]any{"serial": serial, "lease": leaseHandle(b, hc, map[string]any{"serial": serial})}
	b.Cleanup(func() { _, _ = call(hc, "release_device", args) })

	var full, scaled, png []byte
	shot := func(c *client.Client, args map[string]any, into *[]byte) func() error {
		return func() error {
			res, err := call(c, "screenshot", args)
			if err != nil {
				return err
			}
			data, mime := farmtest.Image(res)
			if mime != "image/jpeg" {
				return fmt.Errorf("screenshot: %q image", mime)
			}
			*into, err = base64.StdEncoding.DecodeString(data)
			return err
		}
	}
	sideBySide(b, 5, devs[0], adbServerCPU(adb.Addr()), "screencap", []path{
		{"http", shot(hc, args, &full)},
		{"inprocess", shot(ic, args, &full)},
		{"http-540", shot(hc, withArgs(args, "max_width", 540), &scaled)},
		{"exec", func() (err error) {
			png, err = adbExec(adb.Addr(), serial, "exec:screencap -p")
			if err == nil && !bytes.HasPrefix(png, []byte("\x89PNG")) {
				err = fmt.Errorf("exec:screencap -p gave no PNG (%d bytes)", len(png))
			}
			return err
		}},
	})
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(scaled)); err != nil || cfg.Width != 540 {
		b.Fatalf("max_width 540 gave a %d px wide JPEG (%v)", cfg.Width, err)
	}
	b.ReportMetric(float64(len(full))/1000, "jpeg-KB")
	b.ReportMetric(float64(len(scaled))/1000, "jpeg540-KB")
	b.ReportMetric(float64(len(png))/1000, "png-KB")
}
