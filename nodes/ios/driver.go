package ios

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios/wda"
)

// Defaults of a driver's Options.
const (
	DefaultWDAPort = 8100
	// DefaultRate is how many WebDriverAgent requests a second a device takes at most, in
	// bursts of half as many: WDA serves one request at a time on the phone and falls over
	// when flooded. A real phone's taps take tens of milliseconds, so only a runaway caller
	// meets it; lower it for older phones.
	DefaultRate = 200
)

// Options make a driver for one iPhone.
type Options struct {
	UDID     string
	DeviceID int // usbmuxd's id for it now; SetDeviceID follows a usbmuxd restart
	Mux      Mux
	Facts    Facts
	// WDAPort is where WebDriverAgent listens on the phone (DefaultWDAPort).
	WDAPort uint16
	// Launcher starts WebDriverAgent when it does not answer; nil: the farm runs it itself
	// and the driver waits for it.
	Launcher Launcher
	// Rate limits WebDriverAgent requests a second (DefaultRate).
	Rate float64
	Tags []string
	Log  *slog.Logger
}

// Driver drives one iPhone through WebDriverAgent, reached through usbmuxd, and its lockdown
// services (apps). Coordinates it is given are pixels of its screenshots; WebDriverAgent
// takes points, so it divides by the screen's scale.
type Driver struct {
	o        Options
	info     device.Info
	deviceID atomic.Int64
	trusted  atomic.Bool // paired with this computer: lockdown takes a session
	wda      *wda.Client
	http     *http.Client
	log      *slog.Logger

	screenMu sync.Mutex
	screen   *screen // nil until WebDriverAgent told it

	sup *supervisor

	gestureAt  atomic.Int64 // unix nanoseconds: when the last gesture was sent
	gestureEnd atomic.Int64 // unix nanoseconds: when the last gesture sent ends on the phone
}

// screen is the phone's screen as WebDriverAgent tells it.
type screen struct {
	scale  float64
	points [2]float64 // width, height
	pixels device.Size
}

var (
	_ device.Driver             = (*Driver)(nil)
	_ device.DoubleTapper       = (*Driver)(nil)
	_ device.Swiper             = (*Driver)(nil)
	_ device.TextInputter       = (*Driver)(nil)
	_ device.KeyPresser         = (*Driver)(nil)
	_ device.ClipboardSetter    = (*Driver)(nil)
	_ device.AppManager         = (*Driver)(nil)
	_ device.AppInstaller       = (*Driver)(nil)
	_ device.ForegroundReporter = (*Driver)(nil)
	_ device.SourceDumper       = (*Driver)(nil)
	_ device.DensityReporter    = (*Driver)(nil)
	_ device.StatusReporter     = (*Driver)(nil)
	_ device.HealthChecker      = (*Driver)(nil)
	_ device.HealthReporter     = (*Driver)(nil)
	_ device.Gauger             = (*Driver)(nil)
	_ device.Closer             = (*Driver)(nil)
)

// New makes a driver and starts watching its WebDriverAgent (starting it with o.Launcher when
// it does not answer). The device shows unhealthy, with the reason, until WDA answers.
func New(o Options) *Driver {
	if o.WDAPort == 0 {
		o.WDAPort = DefaultWDAPort
	}
	if o.Rate <= 0 {
		o.Rate = DefaultRate
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	d := &Driver{o: o, log: o.Log.With("udid", o.UDID)}
	d.deviceID.Store(int64(o.DeviceID))
	d.trusted.Store(o.Facts.Trusted)
	d.info = info(o.UDID, o.Facts, o.Tags)
	limit := rate.NewLimiter(rate.Limit(o.Rate), max(1, int(o.Rate/2)))
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return o.Mux.Connect(ctx, d.DeviceID(), o.WDAPort)
		},
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	d.http = &http.Client{Transport: limited{tr, limit}}
	d.wda = wda.New(fmt.Sprintf("http://%s:%d", o.UDID, o.WDAPort), d.http)
	d.sup = startSupervisor(d)
	return d
}

// limited waits for the rate limiter before each request.
type limited struct {
	rt    http.RoundTripper
	limit *rate.Limiter
}

func (l limited) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := l.limit.Wait(r.Context()); err != nil {
		return nil, fmt.Errorf("WebDriverAgent rate limit: %w", err)
	}
	return l.rt.RoundTrip(r)
}

// info describes the device from its facts.
func info(udid string, f Facts, tags []string) device.Info {
	extra := map[string]string{}
	if f.Name != "" {
		extra["name"] = f.Name
	}
	if f.Build != "" {
		extra["build"] = f.Build
	}
	if f.Trusted {
		extra["developer_mode"] = fmt.Sprint(f.DeveloperMode)
	}
	model := f.ProductType
	if model == "" {
		model = "iPhone"
	}
	return device.Info{Serial: udid, Platform: device.PlatformIOS, Model: model, Brand: "Apple", Release: f.Version,
		Tags: tags, Extra: extra}
}

// Info describes the device.
func (d *Driver) Info() device.Info { return d.info }

// DeviceID is usbmuxd's id for the device now.
func (d *Driver) DeviceID() int { return int(d.deviceID.Load()) }

// SetDeviceID follows the device to a new usbmuxd id (usbmuxd restarted and numbered it anew).
func (d *Driver) SetDeviceID(id int) { d.deviceID.Store(int64(id)) }

// Close stops watching the device and drops its connections.
func (d *Driver) Close() error {
	d.sup.stop()
	d.http.CloseIdleConnections()
	return nil
}

// errorf wraps err as a device error with a hint.
func (d *Driver) errorf(op string, err error, hint string) error {
	if err == nil {
		return nil
	}
	return &device.Error{Kind: "iOS device", Serial: d.o.UDID, Op: op, Err: err, Hint: hint}
}
