package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/nodes/device"
)

// Options configure a browser device.
type Options struct {
	Serial  string
	Profile Profile
	// Home is the page HOME opens (default about:blank).
	Home string
	// Allow is which hosts the device may load from (the zero policy: any); Proxy, a Proxy's
	// address enforcing it for everything the browser loads (StartProxy).
	Allow HostPolicy
	Proxy string
	// Lazy starts the browser at the device's first use, not in Start; Idle stops it after
	// that long unused (0: never), to start again at the next use (elastic.go).
	Lazy bool
	Idle time.Duration
	// Tags are the device's tags: device.NodeBrowserTag for a browser the node makes from its
	// flags, and device.SimulatedTag too for one of --sim-web (platform.go).
	Tags []string
	Log  *slog.Logger
}

// Driver is one headless Chromium as a device. Its methods act on the newest open tab, as a
// browser brings a new tab to the front.
type Driver struct {
	serial string
	prof   Profile
	home   string
	allow  HostPolicy
	exec   string // Chromium's path
	proxy  string // Options.Proxy
	owner  owner  // this process, as its profile directories' names say (leftovers.go)
	tags   []string
	log    *slog.Logger

	mu      sync.Mutex
	browser context.Context               // the first tab's: the browser lives as long as it
	stop    func() error                  // stops the browser and removes its profile directory (startBrowser)
	dir     string                        // the browser's profile directory, removed by Close and Reset
	tabs    map[target.ID]context.Context // attached tabs
	// attaching holds the attaches under way of tabs a page opened (takeover.go)
	attaching map[target.ID]*pendingTab
	opened    map[target.ID]int // the order tabs were first seen in; -1: closed
	seen      int
	front     target.ID // the tab last brought to the front
	// lastURL is each open tab's last non-empty URL, for one found between two pages
	// (settledPages)
	lastURL map[target.ID]string
	// committed is each followed tab's last committed URL (committed.go)
	committed map[target.ID]string
	// replaced: the browser crashed and was replaced, and no call has been told (elastic.go);
	// replacedOf is the browser that crashed
	replaced   bool
	replacedOf *chromedp.Browser
	// diedTold is the browser whose death a call's answer told, not replaced yet (died_told.go)
	diedTold *chromedp.Browser
	dialogs  []string    // what the dialogs the tabs answered said, for the next call (dialogs.go)
	report   func(error) // where the device reports its health as its browser stops (report_health.go)

	atStep func(step string) // a test's hook at a call's steps (steps.go)

	lazy     bool
	idle     time.Duration
	inflight int       // uses under way (use)
	lastUse  time.Time // when the last use ended, or the browser started
	leased   bool      // the device is leased: no stop for idleness (Leased)
	// unusedSeen counts stopWhenIdle's looks that found the browser unused for idle, whether
	// it stopped it or not: tests wait on it instead of on time.
	unusedSeen int
	launching  startLock     // one start at a time
	starting   *pendingStart // the browser's start under way, which outlives its callers (launch.go)
	quit       chan struct{}
	quitOnce   sync.Once
	// profiles counts the profile directories made and not yet removed, a start's or a
	// reset's that Close did not stop itself among them: Close waits for them (closeWait).
	profiles liveProfiles

	gaugeMu  sync.Mutex
	gauges   map[string]float64 // the last measurement (memory.go)
	gaugedAt time.Time
}

var (
	_ device.Driver           = (*Driver)(nil)
	_ device.DoubleTapper     = (*Driver)(nil)
	_ device.Swiper           = (*Driver)(nil)
	_ device.TextInputter     = (*Driver)(nil)
	_ device.KeyPresser       = (*Driver)(nil)
	_ device.SourceDumper     = (*Driver)(nil)
	_ device.SelectorActor    = (*Driver)(nil)
	_ device.SecondaryClicker = (*Driver)(nil)
	_ device.TabCloser        = (*Driver)(nil)
	_ device.StatusReporter   = (*Driver)(nil)
	_ device.HealthReporter   = (*Driver)(nil)
)

// ErrStartCutShort answers a Start (not lazy) whose context ended before its browser started:
// the start was stopped and the device closed, so no later call finds it.
var ErrStartCutShort = errors.New("the browser's start was cut short (its context ended before Chromium was ready) and the device is closed")

// Start starts a browser for a device: its own Chromium process and profile directory,
// emulating o.Profile. It first removes the profile directories that nodes which ended
// without closing their browsers (killed) left.
func Start(ctx context.Context, o Options) (*Driver, error) {
	path, err := chromium.Find()
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Home == "" {
		o.Home = "about:blank"
	}
	d := &Driver{serial: o.Serial, prof: o.Profile, home: o.Home, allow: o.Allow, exec: path, proxy: o.Proxy,
		tags: o.Tags, owner: thisProcess(), log: o.Log.With("device", o.Serial), lazy: o.Lazy, idle: o.Idle, quit: make(chan struct{}),
		launching: newStartLock()}
	removeLeftovers(d.log, d.owner)
	if !o.Lazy {
		if err := d.launch(ctx); err != nil {
			_ = d.Close() // a start that goes on past ctx ends with it
			if errors.Is(err, ErrStillStarting) {
				// Not "still starting, call again": Close ended that start, and the device.
				return nil, d.wrap("start", fmt.Errorf("%w: %w", ErrStartCutShort, ctx.Err()),
					"start the device again with more time: Chromium takes a few seconds on a loaded machine")
			}
			return nil, err
		}
	}
	if o.Idle > 0 {
		go d.stopWhenIdle()
	}
	return d, nil
}

// startedBrowser is what startBrowser made.
type startedBrowser struct {
	bctx context.Context
	stop func() error
	dir  string
	err  error
}

// discard stops a browser that was started for nothing and removes its directory (a failure
// is logged as it happens).
func (s startedBrowser) discard() {
	if s.err != nil {
		return
	}
	_ = s.stop()
}

// errDiedAtStart marks a browser process that exited before it answered.
var errDiedAtStart = errors.New("the browser died while starting")

// startBrowser starts a browser on a new profile directory: its first tab's context (the
// browser lives as long as it), what stops it and removes the directory, and the directory.
// A closed device starts none.
func (d *Driver) startBrowser(ctx context.Context) (context.Context, func() error, string, error) {
	if !d.profiles.add() {
		return nil, nil, "", d.wrap("start", errors.New("the device is closed"), "")
	}
	dir, err := os.MkdirTemp("", profilePrefix+d.owner.String()+"-")
	if err != nil {
		d.profiles.done()
		return nil, nil, "", d.wrap("start", fmt.Errorf("a profile directory: %w", err), "")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(d.exec), chromedp.UserDataDir(dir))
	if os.Geteuid() == 0 { // Chromium's sandbox refuses to run as root
		opts = append(opts, chromedp.NoSandbox)
	}
	if d.proxy != "" { // loopback too: Chromium passes it by a proxy unless told not to
		opts = append(opts, chromedp.ProxyServer("http://"+d.proxy), chromedp.Flag("proxy-bypass-list", "<-loopback>"))
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	// chromedp kills the script that starts Chromium, whose own processes then shut down
	// writing in the profile: they are ended first (endBrowserOn).
	kill := func() { endBrowserOn(dir); bcancel(); acancel() }
	stop := sync.OnceValue(func() error {
		defer d.profiles.done()
		kill()
		if err := removeProfile(d.log, dir); err != nil {
			return d.wrap("remove the profile", err, "remove it by hand: "+dir)
		}
		return nil
	})
	fail := func(err error) (context.Context, func() error, string, error) {
		_ = stop() // a failure to remove is logged
		return nil, nil, "", err
	}
	// The first run starts the browser, which lives as long as its context: not ctx.
	if err := d.firstRun(ctx, bctx, kill); err != nil {
		if chromium.DiedAtStart(err) {
			err = fmt.Errorf("%w: %w", errDiedAtStart, err)
		}
		return fail(d.wrap("start", fmt.Errorf("%s: %w", d.exec, err), "check that Chromium runs here: "+d.exec+" --headless --version"))
	}
	// Downloads land in the profile's own directory, and go with it.
	if _, err := chromedp.CallBrowser(bctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: filepath.Join(dir, downloads)}); err != nil {
		return fail(d.wrap("start", fmt.Errorf("setting the downloads' directory: %w", err), ""))
	}
	return bctx, stop, dir, nil
}

// firstRun starts the browser (chromedp's first run on bctx) and emulates the profile in its
// first tab, within ctx. When ctx ends first (Close ends a start under way), it kills the
// browser and waits for the run to return: chromedp's start has then ended, so no Chromium
// starts on the profile after that (removeProfile ends one that started meanwhile).
func (d *Driver) firstRun(ctx, bctx context.Context, kill func()) error {
	ran := make(chan error, 1)
	go func() { ran <- chromedp.Do(bctx, d.emulate()) }()
	select {
	case err := <-ran:
		return err
	case <-ctx.Done():
		kill()
		<-ran
		return ctx.Err()
	}
}

// downloads is the directory of the profile's downloads.
const downloads = "Downloads"

// Downloads is where the device's downloads land: inside its profile directory, removed with
// it (Reset, Close); "" while no browser runs.
func (d *Driver) Downloads() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir == "" {
		return ""
	}
	return filepath.Join(d.dir, downloads)
}

// browserCtx is the running browser's context (nil while none runs). Callers hold a use.
func (d *Driver) browserCtx() context.Context {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.browser
}

// Reset gives the device a new browser on a new profile directory, the old one stopped and
// its directory removed first: nothing of the last holder's (cookies, storage, history,
// tabs, downloads) is left. A lazy device starts its new browser at its next use. A closed
// device (removed alone, its lease revoked as it goes) is not reset: Close removed the
// holder's profile, and a new browser would only be closed.
func (d *Driver) Reset(ctx context.Context) error {
	if d.closed() {
		return nil
	}
	err := d.reset(ctx)
	switch {
	case err == nil:
	case d.closed(): // the node let go of the device: Close removed the last holder's profile
		d.log.Info("the device closed while its browser was reset for the next holder", "err", err)
	default:
		d.log.Warn("resetting the browser for the next holder failed", "err", err)
	}
	return err
}

func (d *Driver) reset(ctx context.Context) error {
	if err := d.launching.lock(ctx); err != nil {
		return d.wrap("reset", err, "")
	}
	defer d.launching.unlock()
	if err := d.shutdown(); err != nil {
		return err
	}
	d.mu.Lock()
	d.replaced, d.replacedOf, d.diedTold = false, nil, nil // the next holder expects a fresh browser: nothing to tell
	d.mu.Unlock()
	if d.lazy || d.closed() { // closed meanwhile: Close removes what is left
		return nil
	}
	return d.launch(ctx)
}

// shutdown stops the browser and removes its profile directory.
func (d *Driver) shutdown() error {
	d.mu.Lock()
	stop := d.stop
	d.stop, d.dir, d.browser = nil, "", nil
	d.mu.Unlock()
	if stop == nil {
		return nil
	}
	defer d.browserStopped()
	return stop()
}

// emulate makes a tab the profile's device.
func (d *Driver) emulate() chromedp.Action[chromedp.Void] {
	p := d.prof
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(p.DPR)}
	if p.Mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	steps := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(p.Width, p.Height, opts...)}
	if p.UserAgent != "" {
		steps = append(steps, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: p.UserAgent})
			return err
		}))
	}
	return within(steps...) // a page whose script hangs answers none of them
}

// Info describes the device.
func (d *Driver) Info() device.Info {
	return device.Info{Serial: d.serial, Platform: device.PlatformWeb, Model: d.prof.Name, Brand: "Chromium", Tags: d.tags,
		Extra: map[string]string{"viewport": fmt.Sprintf("%dx%d@%g", d.prof.Width, d.prof.Height, d.prof.DPR)}}
}

// ScreenSize is the viewport in device pixels.
func (d *Driver) ScreenSize(ctx context.Context) (device.Size, error) {
	w, h := d.prof.pixels()
	return device.Size{Width: w, Height: h}, ctx.Err()
}

// Health answers whether the browser runs, replacing one that crashed, or that answers
// nothing (hung.go); the notice that it was replaced is left for the device's next call
// (use). It is a look (device.Look): an elastic device whose browser is not running is
// healthy, its next use starts one, and the check starts none (a node checks each of its
// devices as it starts); one whose browser is starting (or stopping) is healthy too, its
// start bounded on its own.
func (d *Driver) Health(ctx context.Context) error {
	err := d.checkAnswers(ctx)
	if errors.Is(err, errHung) { // the new browser: started now, or at an elastic device's next use
		err = d.checkAnswers(ctx)
	}
	if errors.Is(err, errHung) {
		return d.wrap("restart", err, "the new browser answered nothing either: it is checked again")
	}
	return err
}

// closed says whether Close has been called.
func (d *Driver) closed() bool {
	select {
	case <-d.quit:
		return true
	default:
		return false
	}
}

// Close stops the browser and removes its profile directory, and waits (for closeWait at
// most) until a start or reset under way, which Close ends, has removed its own: a node
// exits once its devices are closed, and what it leaves stays until its next start.
func (d *Driver) Close() error {
	d.quitOnce.Do(func() { close(d.quit) })
	err := d.shutdown()
	if !d.profiles.closeAndWait(closeWait) {
		d.log.Warn("a browser's start or reset still removes its profile as the device closes; it may stay until the next start",
			"waited", closeWait)
	}
	return err
}

// closeWait bounds Close's wait for a start or reset under way to remove its profile: it
// kills its browser at once (firstRun) and removes the directory in a few seconds at most
// (removeProfile).
const closeWait = 15 * time.Second

// liveProfiles counts a device's profile directories that were made and not yet removed.
// Once closed, it refuses new ones.
type liveProfiles struct {
	mu     sync.Mutex
	n      int
	closed bool
	none   chan struct{} // closed when n is 0 after close
}

// add counts a directory about to be made; false once the device is closed.
func (p *liveProfiles) add() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.n++
	return true
}

// done counts a directory removed (or that failed to be made).
func (p *liveProfiles) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n--
	if p.n == 0 && p.closed {
		close(p.none)
	}
}

// closeAndWait refuses new directories and waits up to limit for none to be left; false
// when some still are.
func (p *liveProfiles) closeAndWait(limit time.Duration) bool {
	p.mu.Lock()
	if !p.closed {
		p.closed, p.none = true, make(chan struct{})
		if p.n == 0 {
			close(p.none)
		}
	}
	none := p.none
	p.mu.Unlock()
	select {
	case <-none:
		return true
	case <-time.After(limit):
		return false
	}
}

// Errors a Driver returns, wrapped in a *device.Error. The caller's mistakes among them are
// device.ErrBadInput too (errors.Is), as is ErrBlocked; a selector that matches nothing is
// device.ErrNoElement.
var (
	ErrBadSelector = mistake("bad selector")
	ErrNoTab       = mistake("no such tab")
	ErrUnknownKey  = mistake("no such key")
	ErrBadURL      = mistake("not a URL a browser device opens")
	ErrOffScreen   = mistake("outside the viewport")
	ErrNoFocus     = errors.New("no text field has focus")
	ErrNoHistory   = mistake("there is no page to go back to")
	// ErrBrowserReplaced answers the first call after the browser crashed (or was killed)
	// and a new one took its place, on a new profile.
	ErrBrowserReplaced = errors.New("the browser had died and was restarted: its tabs, cookies and storage are gone")
)

func (d *Driver) wrap(op string, err error, hint string) error {
	var de *device.Error
	if errors.As(err, &de) {
		return err
	}
	return &device.Error{Kind: "web", Serial: d.serial, Op: op, Err: err, Hint: hint}
}
