package android

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/adbsim"
)

// adbServer is a real adb server on a private port (never 5037, so a developer's own server
// is left alone), with a home of its own so that its key and state do not touch ~/.android.
// It runs in the foreground (`adb -P PORT nodaemon server`) as a child of the test, which it
// does not outlive even if the test binary dies (see dieWithParent).
type adbServer struct {
	tool   string
	port   int
	home   string
	proc   *exec.Cmd
	exited chan struct{}
}

// The adb server most end-to-end tests share: started on first use, killed when they end.
var shared struct {
	once sync.Once
	srv  *adbServer
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.srv != nil {
		shared.srv.kill()
	}
	os.Exit(code)
}

// adbTool returns the path of the adb tool. Without it the test is skipped, or fails if
// CORRAL_REQUIRE_TOOLS is set; -short skips the end-to-end tests too.
func adbTool(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("end-to-end test with the real adb server; not in -short mode")
	}
	tool, err := exec.LookPath("adb")
	if err != nil {
		const why = "the adb tool is not installed (Debian: apt-get install adb)"
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			tb.Fatalf("%s, and CORRAL_REQUIRE_TOOLS is set", why)
		}
		tb.Skip(why)
	}
	return tool
}

// sharedServer returns the address of the shared adb server.
func sharedServer(tb testing.TB) string {
	tb.Helper()
	tool := adbTool(tb)
	shared.once.Do(func() { shared.srv, shared.err = startADB(tool, 0) })
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.srv.addr()
}

// privateServer starts an adb server for one test and kills it after.
func privateServer(tb testing.TB) *adbServer {
	tb.Helper()
	s, err := startADB(adbTool(tb), 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.kill)
	return s
}

// startADB starts an adb server on port, or on a free port if port is 0.
func startADB(tool string, port int) (*adbServer, error) {
	home, err := os.MkdirTemp("", "corral-adb-home-")
	if err != nil {
		return nil, err
	}
	s := &adbServer{tool: tool, port: port, home: home}
	for range 5 {
		if port == 0 {
			if s.port, err = freeLoopbackPort(); err != nil {
				break
			}
		}
		if err = s.start(); err == nil {
			return s, nil
		}
	}
	_ = os.RemoveAll(home)
	return nil, err
}

// start runs the server and waits until it answers.
func (s *adbServer) start() error {
	cmd := s.cmd(context.Background(), "nodaemon", "server")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := hostQuery(ctx, s.addr(), "host:version")
		cancel()
		switch {
		case err == nil:
			s.proc, s.exited = cmd, exited
			return nil
		case time.Now().After(deadline):
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("adb -P %d nodaemon server did not answer: %v", s.port, err)
		}
		select {
		case <-exited:
			return fmt.Errorf("adb -P %d nodaemon server: %v: %s", s.port, cmd.ProcessState, logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// stop runs `adb -P PORT kill-server` and waits for the server to end (killing it after 5 s).
func (s *adbServer) stop() {
	if s.proc == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.cmd(ctx, "kill-server").Run()
	select {
	case <-s.exited:
	case <-ctx.Done():
		_ = s.proc.Process.Kill()
		<-s.exited
	}
	s.proc = nil
}

// kill stops the server and removes its home.
func (s *adbServer) kill() {
	s.stop()
	_ = os.RemoveAll(s.home)
}

func (s *adbServer) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// cmd is the adb tool aimed at this server.
func (s *adbServer) cmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.tool, append([]string{"-P", strconv.Itoa(s.port)}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+s.home, "ANDROID_USER_HOME="+s.home+"/.android",
		"ANDROID_ADB_SERVER_PORT="+strconv.Itoa(s.port))
	return cmd
}

// connect makes the server connect to dev and waits until it lists dev as ready.
func (s *adbServer) connect(tb testing.TB, dev *adbsim.Device) {
	tb.Helper()
	s.connectOnly(tb, dev)
	waitState(tb, s.addr(), dev.Serial(), "device")
}

// connectOnly runs adb connect without waiting for the server to list dev as ready (a test
// may time that wait itself). A device that was killed stays listed offline while the server
// retries it, up to 10 s apart; adb connect then answers "already connected" and leaves it to
// the retry, so connectOnly disconnects the stale entry and connects afresh, as a user would.
// adb disconnect answers before the server has dropped the entry, so connectOnly waits until
// it is gone: connecting sooner answers "already connected" again, and the device stays
// offline until the retry (seen on a loaded machine).
func (s *adbServer) connectOnly(tb testing.TB, dev *adbsim.Device) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		out, err := s.cmd(ctx, "connect", dev.Serial()).CombinedOutput()
		switch {
		case err != nil || !strings.Contains(string(out), "connected to"):
			tb.Fatalf("adb connect %s: %v: %s", dev.Serial(), err, out)
		case !strings.Contains(string(out), "already connected"):
			return
		}
		if state, _ := hostQuery(ctx, s.addr(), "host-serial:"+dev.Serial()+":get-state"); state == "device" {
			return
		}
		s.disconnect(dev)
		s.waitUnlisted(ctx, tb, dev.Serial())
	}
}

// waitUnlisted polls the server until it no longer lists serial.
func (s *adbServer) waitUnlisted(ctx context.Context, tb testing.TB, serial string) {
	tb.Helper()
	for {
		_, err := hostQuery(ctx, s.addr(), "host-serial:"+serial+":get-state")
		if err != nil && strings.Contains(err.Error(), "not found") {
			return
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("adb disconnect %s: still listed (%v)", serial, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// disconnect makes the server forget dev.
func (s *adbServer) disconnect(dev *adbsim.Device) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.cmd(ctx, "disconnect", dev.Serial()).Run()
}

// waitState polls the adb server at addr until it lists serial in state.
func waitState(tb testing.TB, addr, serial, state string) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var got string
	var err error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		got, err = hostQuery(ctx, addr, "host-serial:"+serial+":get-state")
		cancel()
		if got == state {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("%s: state %q (%v), want %q", serial, got, err, state)
}

// startDevice starts a simulated device that is closed when the test ends.
func startDevice(tb testing.TB, opts ...adbsim.Option) *adbsim.Device {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dev, err := adbsim.StartDevice(ctx, "127.0.0.1:0", opts...)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = dev.Close()
		cancel()
	})
	return dev
}

// newDevice starts a simulated device, connects the shared adb server to it and makes a
// driver for it.
func newDevice(tb testing.TB, opts ...adbsim.Option) (*adbsim.Device, *Driver) {
	tb.Helper()
	addr := sharedServer(tb)
	dev := startDevice(tb, opts...)
	shared.srv.connect(tb, dev)
	tb.Cleanup(func() { shared.srv.disconnect(dev) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := New(ctx, addr, dev.Serial())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = d.Close() })
	return dev, d
}

// waitCommand polls dev's command log until it holds cmd.
func waitCommand(tb testing.TB, dev *adbsim.Device, cmd string) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, c := range dev.Commands() {
			if c == cmd {
				return
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	tb.Fatalf("the device never received %q", cmd)
}
