package main

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/camera"
	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/internal/farmtest"
)

// lockedBuffer is an io.Writer a test reads while another goroutine writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var (
	simGRBL   = regexp.MustCompile(`grbl: tcp://(\S+)`)
	simCamera = regexp.MustCompile(`camera: (\S+)`)
)

// startSimArm runs `corral sim arm` with args in-process until the test ends, and returns the
// controller's address and the camera's URL from the rigs file entry it prints.
func startSimArm(t *testing.T, args ...string) (grblAddr, cameraURL string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- simArm(ctx, append([]string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--pty=false", "--log-level", "error"}, args...), &out)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("corral sim arm: %v", err)
		}
	})
	farmtest.Eventually(t, time.Minute, func() bool { return strings.Contains(out.String(), "readback:") }, "corral sim arm's rigs file entry")
	return simGRBL.FindStringSubmatch(out.String())[1], simCamera.FindStringSubmatch(out.String())[1]
}

// dialSim connects the rig's GRBL client to the twin's controller.
func dialSim(t *testing.T, addr string) *grbl.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := grbl.DialTCP(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// send sends one line and waits for its answer, at most 10 s.
func send(c *grbl.Client, line string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Send(ctx, line)
}

// answersAgain waits until a new client gets an answer from the controller at addr.
func answersAgain(t *testing.T, addr, what string) {
	t.Helper()
	farmtest.Eventually(t, time.Minute, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := grbl.DialTCP(ctx, addr)
		if err != nil {
			return false
		}
		defer func() { _ = c.Close() }()
		return c.Send(ctx, "G4 P0") == nil
	}, what)
}

// --freeze-after N: the controller answers N lines, then nothing, for --freeze-for; then it
// answers again.
func TestSimArmFreezeAfter(t *testing.T) {
	addr, _ := startSimArm(t, "--freeze-after", "2", "--freeze-for", "4s")
	c := dialSim(t, addr)
	for i := range 2 {
		if err := send(c, "G4 P0"); err != nil {
			t.Fatalf("line %d of the 2 the controller answers: %v", i+1, err)
		}
	}
	if err := send(c, "G4 P0"); err == nil {
		t.Fatal("line 3 answered: the controller did not freeze after 2 lines")
	} else {
		t.Logf("line 3 to the frozen controller: %v", err)
	}
	answersAgain(t, addr, "the controller answering after --freeze-for")
}

// --drop-after N: the controller answers N lines, then drops its connections, as a pulled
// cable; it takes new ones.
func TestSimArmDropAfter(t *testing.T) {
	addr, _ := startSimArm(t, "--drop-after", "1")
	c := dialSim(t, addr)
	if err := send(c, "G4 P0"); err != nil {
		t.Fatalf("line 1: %v", err)
	}
	if err := send(c, "G4 P0"); err == nil {
		t.Fatal("line 2 answered: the link did not drop after 1 line")
	} else {
		t.Logf("line 2 on the dropped link: %v", err)
	}
	answersAgain(t, addr, "the controller taking a new connection")
}

// --alarm-after N --alarm CODE: the controller answers N lines, then raises the alarm, which
// the client reports by its code.
func TestSimArmAlarmAfter(t *testing.T) {
	addr, _ := startSimArm(t, "--alarm-after", "1", "--alarm", "1")
	c := dialSim(t, addr)
	if err := send(c, "G4 P0"); err != nil {
		t.Fatalf("line 1: %v", err)
	}
	err := send(c, "G4 P0")
	var alarm *grbl.Alarm
	if !errors.As(err, &alarm) || alarm.Code != 1 {
		t.Fatalf("line 2: %v; want the hard-limit alarm (ALARM:1)", err)
	}
}

// --limits: a move off the bed raises the soft-limit alarm instead of moving.
func TestSimArmLimits(t *testing.T) {
	addr, _ := startSimArm(t, "--limits")
	c := dialSim(t, addr)
	if err := send(c, "$H"); err != nil {
		t.Fatalf("$H: %v, want the gantry homed", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := c.Rapid(ctx, -500, 60)
	if err == nil {
		_, err = c.WaitIdle(ctx)
	}
	var alarm *grbl.Alarm
	if !errors.As(err, &alarm) || alarm.Code != 2 {
		t.Fatalf("G0 X-500: %v, want the soft-limit alarm (ALARM:2)", err)
	}
}

// --camera-stall-after N: the camera sends N frames, then none; the rig's camera client sees
// it down ("no frame for ...") and gets no frame after the first.
func TestSimArmCameraStall(t *testing.T) {
	_, url := startSimArm(t, "--camera-stall-after", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a first frame under -race on a loaded machine
	defer cancel()
	cam, err := camera.OpenMJPEG(ctx, url, camera.WithStallTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cam.Close() })
	var down error
	farmtest.Eventually(t, 2*time.Minute, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := cam.Frame(ctx); err == nil {
			t.Fatal("a frame came after the first: the camera did not stall")
		} else if errors.Is(err, camera.ErrDown) {
			down = err
		}
		return down != nil
	}, "the camera seen down")
	t.Logf("the stalled camera: %v", down)
	// Still none a while later (a camera that only renders slowly would send one by then).
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if _, err := cam.Frame(ctx); err == nil {
			t.Fatal("a frame came after the stall")
		}
		select { // down is answered at once: look again in a while
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// The fault flags are in `corral sim arm --help`, and values that mean nothing are refused.
func TestSimArmFaultFlags(t *testing.T) {
	_, out, errOut := corralMain(t, "sim", "arm", "-h")
	for _, flag := range []string{"-freeze-after", "-freeze-for", "-drop-after", "-alarm-after", "-alarm", "-camera-stall-after", "-camera-stall-for", "-limits"} {
		if !regexp.MustCompile(`(?m)^\s+` + flag + `\b`).MatchString(out + errOut) {
			t.Errorf("corral sim arm -h has no %s", flag)
		}
	}
	for _, c := range [][]string{{"--freeze-after", "-1"}, {"--alarm", "11"}, {"--camera-stall-for", "-1s"}, {"--camera-stall-after", "-2"}} {
		code, out, errOut := corralMain(t, append([]string{"sim", "arm", "--check-config"}, c...)...)
		if code != 2 || !strings.Contains(out+errOut, c[0]+" "+c[1]) {
			t.Errorf("corral sim arm %s: exit %d, %s%s; want 2 naming the value", strings.Join(c, " "), code, out, errOut)
		}
	}
}
