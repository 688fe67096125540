package ios

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// A --wda-launch command that fails is seen: the device's reason says the launch command failed,
// with its exit status and the end of its output, and the node logs it at WARN. Before, the
// device said "restarted it, waiting for its answer" for ever, and the exit status was logged at
// DEBUG only, the output thrown away.
func TestLaunchCommandFailureIsTheReason(t *testing.T) {
	var logs logtest.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	sims := oneSim(t, log)
	reg := attachLaunching(t, sims, &CommandLauncher{Log: log, Args: []string{"sh", "-c",
		"echo building WebDriverAgent for {udid}; echo 'xcodebuild: error: no scheme named WebDriverAgentRunner' >&2; exit 65"}}, log)
	sims.Devices()[0].Unhandle(DefaultWDAPort) // WebDriverAgent dies; the command cannot start it

	want := "its launch command failed (sh: exit status 65; its output ends: building WebDriverAgent for ios-sim-01 | xcodebuild: error: no scheme named WebDriverAgentRunner): fix --wda-launch"
	eventually(t, 10*time.Second, func() bool {
		err, _ := reg.healthOf("ios-sim-01")
		return err != nil && strings.Contains(err.Error(), want)
	}, "the device's reason naming the failed launch command")
	line := logs.Line("WebDriverAgent launch command failed")
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, `err="exit status 65"`) || !strings.Contains(line, "no scheme named") {
		t.Errorf("the log line: %q", line)
	}
	if strings.Contains(line, "exit 65") { // the script itself
		t.Errorf("the log shows the command's arguments: %q", line)
	}
}

// oneSim starts one simulated iPhone behind a usbmuxd of its own.
func oneSim(t *testing.T, log *slog.Logger) *Sims {
	t.Helper()
	sims, err := StartSims(1, "127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	return sims
}

// attachLaunching follows sims' usbmuxd with launcher starting WebDriverAgent, until the test
// ends, and waits for the iPhone to be ready.
func attachLaunching(t *testing.T, sims *Sims, launcher Launcher, log *slog.Logger) *registry {
	t.Helper()
	reg := newRegistry()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Attach(ctx, reg, AttachOptions{Mux: ParseMux(sims.Addr()), Launcher: launcher, Log: log})
	}()
	t.Cleanup(func() { cancel(); <-done; reg.closeAll(); _ = sims.Close() })
	ready(t, reg, "ios-sim-01")
	return reg
}

// What a launch command printed is kept bounded however much it prints, and a failure quotes
// its last lines, cut to tailShow bytes.
func TestLaunchOutputTailIsBounded(t *testing.T) {
	var out tail
	for i := range 10_000 {
		_, _ = out.Write([]byte(strings.Repeat("x", i%300) + "\n"))
	}
	_, _ = out.Write([]byte("error: the last words\n\n"))
	if len(out.buf) > tailKeep {
		t.Errorf("kept %d bytes, more than %d", len(out.buf), tailKeep)
	}
	s := out.String()
	if len(s) > tailShow+len("…") || !strings.HasSuffix(s, "error: the last words") {
		t.Errorf("the tail (%d bytes): %q", len(s), s)
	}
	var none tail
	if none.String() != "" {
		t.Errorf("the tail of nothing: %q", none.String())
	}
}
