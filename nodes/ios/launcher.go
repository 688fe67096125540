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
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

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
	runs map[string]*xctestRun
}

// xctestRun is the WebDriverAgentRunner run last started for a device, and how it failed.
type xctestRun struct {
	stop   context.CancelFunc
	failed error
}

// Default bundle ids of WebDriverAgentRunner built with Xcode, as `ios runwda` takes them.
const (
	DefaultWDABundleID     = "com.facebook.WebDriverAgentRunner.xctrunner"
	DefaultWDAXCTestConfig = "WebDriverAgentRunner.xctest"
)

// Launch stops the run it started before on udid, if any, and starts a new one. A run that
// fails on its own (WebDriverAgentRunner not installed, no developer image mounted) is logged at
// WARN, and LaunchFailed says so until the next launch.
func (l *XCTestLauncher) Launch(ctx context.Context, udid string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[string]*xctestRun{}
	}
	if old := l.runs[udid]; old != nil {
		old.stop()
		delete(l.runs, udid)
	}
	dev, err := goios.GetDevice(udid)
	if err != nil {
		return fmt.Errorf("go-ios does not find %s through USBMUXD_SOCKET_ADDRESS: %w", udid, err)
	}
	rctx, cancel := context.WithCancel(ctx)
	run := &xctestRun{stop: cancel}
	l.runs[udid] = run
	bundle := cmp.Or(l.BundleID, DefaultWDABundleID)
	go func() {
		defer cancel()
		_, err := testmanagerd.RunTestWithConfig(rctx, testmanagerd.TestConfig{
			BundleId: bundle, TestRunnerBundleId: cmp.Or(l.TestRunnerBundleID, l.BundleID, DefaultWDABundleID),
			XctestConfigName: cmp.Or(l.XCTestConfig, DefaultWDAXCTestConfig), Device: dev,
			Listener: testmanagerd.NewTestListener(io.Discard, io.Discard, os.TempDir()),
		})
		if err != nil && rctx.Err() == nil {
			l.ended(udid, run, bundle, err)
		}
	}()
	return nil
}

// ended records and logs how a run failed, unless the next launch has replaced it.
func (l *XCTestLauncher) ended(udid string, run *xctestRun, bundle string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs[udid] != run {
		return
	}
	run.failed = fmt.Errorf("go-ios's WebDriverAgentRunner run ended (%s: %v): is WebDriverAgentRunner installed on the iPhone under that bundle id? Or start WDA another way (--wda-launch)", bundle, err)
	if l.Log != nil {
		l.Log.Warn("WebDriverAgentRunner ended; is it installed on the iPhone? (it is run again with backoff)",
			"udid", udid, "bundle", bundle, "err", err)
	}
}

// LaunchFailed is how the run last started for udid failed, nil if it did not (yet).
func (l *XCTestLauncher) LaunchFailed(udid string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if run := l.runs[udid]; run != nil {
		return run.failed
	}
	return nil
}

// CommandLauncher runs a command that starts WebDriverAgent for a device (xcodebuild,
// `ios runwda`, a farm's own script): its arguments with {udid} replaced, no shell. The
// command may keep running (it is stopped at the next launch) or return once WDA is up. One
// that fails is logged at WARN with its exit status and the tail of its output, and LaunchFailed
// says so until the next launch.
type CommandLauncher struct {
	Args []string
	Log  *slog.Logger

	mu   sync.Mutex
	runs map[string]*commandRun
}

// commandRun is the command last started for a device, and how it failed.
type commandRun struct {
	cmd    *exec.Cmd
	failed error
}

// launchWaitDelay bounds how long a command that exited is waited for to close its output:
// one that leaves WebDriverAgent running in the background hands it its stdout.
const launchWaitDelay = time.Second

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
		l.runs = map[string]*commandRun{}
	}
	if old := l.runs[udid]; old != nil && old.cmd.Process != nil {
		_ = old.cmd.Process.Kill()
	}
	out := &tail{}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.WaitDelay = out, out, launchWaitDelay
	if err := cmd.Start(); err != nil {
		delete(l.runs, udid)
		return fmt.Errorf("start %s: %w", args[0], err)
	}
	run := &commandRun{cmd: cmd}
	l.runs[udid] = run
	go l.wait(ctx, udid, run, out)
	return nil
}

// wait waits for a command to end and, if it failed on its own (not stopped by the next
// launch or the node), records and logs how: the program, not its arguments, which may hold
// what the farm passes it.
func (l *CommandLauncher) wait(ctx context.Context, udid string, run *commandRun, out *tail) {
	err := run.cmd.Wait()
	if err == nil || ctx.Err() != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs[udid] != run {
		return // killed by the next launch
	}
	prog := filepath.Base(run.cmd.Path)
	said := out.String()
	how := fmt.Sprintf("%s: %v", prog, err)
	if said != "" {
		how += "; its output ends: " + said
	}
	run.failed = fmt.Errorf("its launch command failed (%s): fix --wda-launch", how)
	if l.Log != nil {
		l.Log.Warn("WebDriverAgent launch command failed; fix --wda-launch (it is run again with backoff)",
			"udid", udid, "command", prog, "err", err, "output", said)
	}
}

// LaunchFailed is how the command last started for udid failed, nil if it did not (yet).
func (l *CommandLauncher) LaunchFailed(udid string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if run := l.runs[udid]; run != nil {
		return run.failed
	}
	return nil
}
