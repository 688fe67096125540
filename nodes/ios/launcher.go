package ios

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"

	goios "github.com/danielpaulus/go-ios/ios"
	"github.com/danielpaulus/go-ios/ios/testmanagerd"
)

// Launcher starts WebDriverAgent on a device: go-ios's testmanagerd runner (XCTestLauncher),
// or whatever a farm runs WDA with. Launch returns once WDA is on its way (the supervisor
// waits for its /status); WDA keeps running after it returns, until it dies or ctx ends.
type Launcher interface {
	Launch(ctx context.Context, udid string) error
}

// LauncherFunc is a function that is a Launcher.
type LauncherFunc func(ctx context.Context, udid string) error

// Launch calls f.
func (f LauncherFunc) Launch(ctx context.Context, udid string) error { return f(ctx, udid) }

// XCTestLauncher starts WebDriverAgentRunner as an XCUITest through go-ios's testmanagerd
// runner (what `ios runwda` does), for iOS 16 and earlier over usbmuxd. go-ios opens these
// connections itself, through USBMUXD_SOCKET_ADDRESS (or /var/run/usbmuxd).
type XCTestLauncher struct {
	BundleID, TestRunnerBundleID, XCTestConfig string
	Log                                        *slog.Logger

	mu   sync.Mutex
	runs map[string]context.CancelFunc
}

// Default bundle ids of WebDriverAgentRunner built with Xcode, as `ios runwda` takes them.
const (
	DefaultWDABundleID     = "com.facebook.WebDriverAgentRunner.xctrunner"
	DefaultWDAXCTestConfig = "WebDriverAgentRunner.xctest"
)

// Launch stops the run it started before on udid, if any, and starts a new one.
func (l *XCTestLauncher) Launch(ctx context.Context, udid string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[string]context.CancelFunc{}
	}
	if stop := l.runs[udid]; stop != nil {
		stop()
	}
	dev, err := goios.GetDevice(udid)
	if err != nil {
		return fmt.Errorf("go-ios does not find %s through USBMUXD_SOCKET_ADDRESS: %w", udid, err)
	}
	rctx, cancel := context.WithCancel(ctx)
	l.runs[udid] = cancel
	log := l.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	go func() {
		defer cancel()
		_, err := testmanagerd.RunTestWithConfig(rctx, testmanagerd.TestConfig{
			BundleId: cmp.Or(l.BundleID, DefaultWDABundleID), TestRunnerBundleId: cmp.Or(l.TestRunnerBundleID, l.BundleID, DefaultWDABundleID),
			XctestConfigName: cmp.Or(l.XCTestConfig, DefaultWDAXCTestConfig), Device: dev,
			Listener: testmanagerd.NewTestListener(io.Discard, io.Discard, os.TempDir()),
		})
		if err != nil && rctx.Err() == nil {
			log.Warn("WebDriverAgentRunner ended", "udid", udid, "err", err)
		}
	}()
	return nil
}

// CommandLauncher runs a command that starts WebDriverAgent for a device (xcodebuild,
// `ios runwda`, a farm's own script): its arguments with {udid} replaced, no shell. The
// command may keep running (it is stopped at the next launch) or return once WDA is up.
type CommandLauncher struct {
	Args []string
	Log  *slog.Logger

	mu   sync.Mutex
	runs map[string]*exec.Cmd
}

// CheckLaunchCommand says what is wrong with a --wda-launch command: one that names no
// {udid} would start the same WebDriverAgent for every iPhone, and one not on PATH would fail
// at each launch, long after the start.
func CheckLaunchCommand(command string) error {
	args := strings.Fields(command)
	if len(args) == 0 {
		return errors.New("no command")
	}
	if !strings.Contains(command, "{udid}") {
		return errors.New("it names no {udid}: write {udid} where the iPhone's UDID goes, e.g. 'ios runwda --udid={udid}'")
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		return fmt.Errorf("%s: not found: give a command on PATH or its path", args[0])
	}
	return nil
}

// udidChars are what a UDID is made of; anything else is refused before it reaches a command.
var udidChars = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// Launch starts the command for udid, stopping the one started before.
func (l *CommandLauncher) Launch(ctx context.Context, udid string) error {
	if !udidChars.MatchString(udid) {
		return fmt.Errorf("refusing to launch WebDriverAgent for the malformed UDID %q", udid)
	}
	if len(l.Args) == 0 {
		return errors.New("--wda-launch names no command")
	}
	args := make([]string, len(l.Args))
	for i, a := range l.Args {
		args[i] = strings.ReplaceAll(a, "{udid}", udid)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[string]*exec.Cmd{}
	}
	if old := l.runs[udid]; old != nil && old.Process != nil {
		_ = old.Process.Kill()
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", args[0], err)
	}
	l.runs[udid] = cmd
	go func() {
		if err := cmd.Wait(); err != nil && ctx.Err() == nil && l.Log != nil {
			l.Log.Debug("WebDriverAgent launch command ended", "udid", udid, "err", err)
		}
	}()
	return nil
}
