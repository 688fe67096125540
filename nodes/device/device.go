// Package device is the contract between Corral and a device driver: what every driver does
// (Driver), the optional abilities a driver may have, how a device describes itself (Info),
// the units of its screen (Point, Size) and how a driver reports a failure (Error). It imports
// nothing of Corral, so a driver — and a simulator that speaks a device's protocol — depends on
// this package and its own protocol libraries only.
package device

import (
	"context"
	"image"
	"time"
)

// Platform names as the HttpRunner seed spells them.
const (
	PlatformAndroid = "android"
	PlatformIOS     = "ios"
	PlatformWeb     = "web"
	PlatformArm     = "arm"
)

// SimulatedTag is the tag of every simulated device (--sim, --sim-android, --sim-ios, --sim-arm,
// --sim-web):
// users filter on it, and a restarted node removes its simulated devices of its last run by it.
const SimulatedTag = "sim"

// NodeBrowserTag is the tag of every browser device a node makes from its flags (--web,
// --sim-web, --web-max): a restarted node removes those of its last run that it does not make
// again, as it does its simulated devices. A browser device brought to a node otherwise carries
// none, and its entry stays, offline, when the node restarts without it.
const NodeBrowserTag = "web"

// Info describes a device as the registry shows it.
type Info struct {
	Serial   string            `json:"serial"`
	Platform string            `json:"platform"`
	Model    string            `json:"model,omitempty"`
	Brand    string            `json:"brand,omitempty"`
	Release  string            `json:"release,omitempty"` // OS version, e.g. "14"
	SDK      string            `json:"sdk,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Extra    map[string]string `json:"extra,omitempty"`
}

// CalibrationReport is how well a calibration fits (Calibrator).
type CalibrationReport struct {
	Probes            int     // touches measured
	ResidualP95MM     float64 // how far the probes lie from the fit, 95th percentile, mm
	ValidationErrorMM float64 // how far a check touch landed from where it was aimed, mm
}

// Size is a screen size in pixels.
type Size struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Point is a position in pixels of the device's screen.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// Driver is what every device driver does. All coordinates a driver sees are pixels of its own
// screen; the node converts relative coordinates and bboxes before calling it.
// Every method must return promptly once ctx is cancelled.
type Driver interface {
	Info() Info
	ScreenSize(ctx context.Context) (Size, error)
	Screenshot(ctx context.Context) (image.Image, error)
	// Tap touches p; hold is how long the finger stays down (0 means a plain tap).
	Tap(ctx context.Context, p Point, hold time.Duration) error
}

// Optional abilities. A driver that lacks one simply does not implement it, and the tool that
// needs it answers that this platform cannot do it.
type (
	// DoubleTapper taps twice quickly at one point.
	DoubleTapper interface {
		DoubleTap(ctx context.Context, p Point) error
	}
	// Swiper moves a finger from one point to another over d. A drag is a swipe that holds
	// first (hold > 0).
	Swiper interface {
		Swipe(ctx context.Context, from, to Point, d, hold time.Duration) error
	}
	// TextInputter types text into the focused element.
	TextInputter interface {
		InputText(ctx context.Context, text string) error
	}
	// KeyPresser presses a named key: HOME, BACK, ENTER, VOLUME_UP, VOLUME_DOWN, POWER, ...
	KeyPresser interface {
		PressKey(ctx context.Context, key string) error
	}
	// AppManager lists, launches and stops apps by package name (bundle id on iOS).
	AppManager interface {
		ListPackages(ctx context.Context) ([]string, error)
		LaunchApp(ctx context.Context, pkg string) error
		TerminateApp(ctx context.Context, pkg string) error
	}
	// SourceDumper returns the UI hierarchy as XML whose bounds are pixels of the screenshot.
	SourceDumper interface {
		Source(ctx context.Context) (string, error)
	}
	// HealthChecker answers whether the device can take work; it runs after an actor restart.
	HealthChecker interface {
		Health(ctx context.Context) error
	}
	// HealthReporter watches its device's health itself (an iPhone's WebDriverAgent dies on
	// long runs and is restarted): the node hands it report when the device is added, and the
	// driver calls report with its health at every change and again every few seconds, until
	// it is closed. An error shows the device unhealthy with that reason (no task starts on it);
	// nil shows it online.
	HealthReporter interface {
		ReportHealth(report func(error))
	}
	// Closer releases what the driver holds when its device leaves the node.
	Closer interface {
		Close() error
	}
	// AppInstaller installs an app from a file on the node (the op fetches URLs first),
	// saying what it installed, and uninstalls one by package name.
	AppInstaller interface {
		InstallApp(ctx context.Context, localPath string) (InstalledApp, error)
		UninstallApp(ctx context.Context, pkg string) error
	}
	// AppClearer clears an app's data and cache.
	AppClearer interface {
		ClearApp(ctx context.Context, pkg string) error
	}
	// ForegroundReporter names the app in front (package name).
	ForegroundReporter interface {
		ForegroundApp(ctx context.Context) (string, error)
	}
	// IMESetter selects an input method by its id (e.g. com.android.adbkeyboard/.AdbIME).
	IMESetter interface {
		SetIME(ctx context.Context, ime string) error
	}
	// FrontAppQuitter force-quits the app in front without naming it, as a finger does in
	// the app switcher (an arm over an iPhone), and leaves the home screen showing.
	FrontAppQuitter interface {
		QuitFrontApp(ctx context.Context) error
	}
	// Calibrator measures again where the device's touches land (an arm rig: the camera's
	// view of the screen, the screen under the gantry), telling each step to progress.
	Calibrator interface {
		Calibrate(ctx context.Context, progress func(step string)) (CalibrationReport, error)
	}
	// AlarmRecoverer brings a machine out of an alarm its controller raised (an arm rig's
	// GRBL: a tripped limit, a reset in mid-move), with nothing left moving.
	AlarmRecoverer interface {
		Recover(ctx context.Context) error
	}
	// Gauger reports numbers worth watching that the driver measures of its device, by fixed
	// names (an arm rig: calibration_error_mm): the node exports them after every task.
	Gauger interface {
		Gauges() map[string]float64
	}
	// Halter stops the device's machine at once, whatever it does, and holds it so until it is
	// recovered (AlarmRecoverer): emergency_stop on an arm rig. It tells when its machine
	// halts (by Halt, or on its own: a controller's alarm) and is recovered: report is called
	// at every change, with why, and "" once recovered, until the driver is closed. A Halt's
	// reason is stop's (Stop.Reason): who stopped it and when.
	Halter interface {
		Halt(ctx context.Context, stop Stop) error
		ReportHalt(report func(reason string))
	}
	// ClipboardSetter puts text on the device's clipboard.
	ClipboardSetter interface {
		SetClipboard(ctx context.Context, text string) error
	}
	// DensityReporter tells the screen density in dots per inch, so that centimetres (the
	// PhysiClaw swipe sizes) become pixels.
	DensityReporter interface {
		Density(ctx context.Context) (int, error)
	}
	// SwipeTimer tells how long a Swipe from → to asked to take dur takes: longer than dur on a
	// device with a top speed (an arm's finger), so that the swipe tools report what it took.
	SwipeTimer interface {
		SwipeTime(from, to Point, dur time.Duration) time.Duration
	}
	// SelectorActor acts on the element a CSS selector or an XPath (starting with / or ( )
	// finds, scrolled into view, at its box's centre (a browser): a tap, the pointer moved over
	// it, or a secondary (right) click. No match is an error that wraps ErrNoElement.
	SelectorActor interface {
		TapSelector(ctx context.Context, selector string) error
		HoverSelector(ctx context.Context, selector string) error
		SecondaryClickSelector(ctx context.Context, selector string) error
	}
	// SecondaryClicker clicks the secondary (right) button at a point (a browser's context menu).
	SecondaryClicker interface {
		SecondaryClick(ctx context.Context, p Point) error
	}
	// TabCloser closes a browser tab by its index among the open tabs, oldest first; the
	// newest remaining one is then in front.
	TabCloser interface {
		CloseTab(ctx context.Context, index int) error
	}
	// Resetter makes the device fresh for its next holder (a browser: a new profile, so no
	// cookies, storage, history or tabs are left). The node calls it as an explicit lease ends
	// (once no task is in the driver), under a bound of its own rather than a caller's
	// deadline, and runs no task on the device until it has succeeded.
	Resetter interface {
		Reset(ctx context.Context) error
	}
	// JPEGScreenshotter captures the screen as JPEG bytes as the device encodes them (a
	// browser), so that a screenshot goes out as captured, neither decoded nor encoded again.
	JPEGScreenshotter interface {
		ScreenshotJPEG(ctx context.Context) (data []byte, size Size, err error)
	}
	// NoUILoginer logs in without the login page's UI (HttpRunner's web_login_none_ui): a
	// browser posts the credentials to the site's login endpoint from the site's own origin,
	// so the session it answers with lands in the browser's cookies.
	NoUILoginer interface {
		LoginNoUI(ctx context.Context, endpoint string, fields map[string]string) (LoginResult, error)
	}
	// StatusReporter reports live facts about the device: battery level, charging, etc.
	StatusReporter interface {
		Status(ctx context.Context) (map[string]string, error)
	}
)

// InstalledApp is what an install put on the device: its package name (Android) or bundle id
// (iOS), what app_launch takes, and its version as the app file gives it. Either is empty when
// the driver could not tell.
type InstalledApp struct {
	ID      string
	Version string
}

// LoginResult is what a login endpoint answered: its HTTP status and the start of its body.
type LoginResult struct {
	Status int    `json:"status"`
	Body   string `json:"body,omitempty"`
}

// Capable is a driver with every ability a tool uses: what Android's drivers are, and what a
// test stand-in implements to serve every tool. A driver need not be one.
type Capable interface {
	Driver
	DoubleTapper
	Swiper
	TextInputter
	KeyPresser
	AppManager
	SourceDumper
	AppInstaller
	AppClearer
	ForegroundReporter
	IMESetter
	ClipboardSetter
	DensityReporter
	StatusReporter
}
