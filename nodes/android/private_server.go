package android

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// How long a private server gets at each step of its life.
const (
	serverStartAttempts = 3                // a free port may be taken between our check and the server's bind
	serverStartTimeout  = 20 * time.Second // until it answers host:version
	adbCommandTimeout   = 20 * time.Second // adb connect and the like
	killServerTimeout   = 3 * time.Second  // a server that answers replies at once
	serverExitTimeout   = 5 * time.Second  // after kill-server, and after SIGKILL
	serverTermTimeout   = 3 * time.Second  // after SIGTERM
	serverOutputKept    = 4 << 10          // bytes of the server's first output, for start errors
)

// PrivateServer is an adb server of our own on a free loopback port, for simulated devices: a
// user's server on 5037 is never disturbed. It runs in the foreground (`adb -P PORT nodaemon
// server`) as our child, not through `adb start-server`, whose daemon Corral could not find
// again: Stop must be able to signal the very process when kill-server does not end it. A
// server that exits before Stop is started again on the same port, and the devices given to
// Connect are connected to it again (keep).
type PrivateServer struct {
	bin  string
	port int
	log  *slog.Logger

	mu         sync.Mutex
	proc       *serverProc // the server running now, or the last one
	restarting bool        // proc exited and keep is starting another
	connected  []string    // what Connect connected, for a restarted server

	quit     context.CancelFunc // ends keep
	kept     chan struct{}      // closed once keep has returned
	stopOnce sync.Once
}

// serverProc is one run of the server.
type serverProc struct {
	cmd     *exec.Cmd
	output  *headBuffer
	exited  chan struct{} // closed once the server has exited and been reaped
	started time.Time
}

// ServerOption configures StartPrivateServer.
type ServerOption func(*PrivateServer)

// WithServerLogger sets where Stop reports a server that had to be signalled, and keep one that
// exited and was started again (default slog.Default()).
func WithServerLogger(log *slog.Logger) ServerOption {
	return func(p *PrivateServer) {
		if log != nil {
			p.log = log
		}
	}
}

// StartPrivateServer starts the adb tool's server on a free port of 127.0.0.1 and waits until
// it answers. ctx bounds the start only: the server runs until Stop, started again on the same
// port whenever it exits before.
func StartPrivateServer(ctx context.Context, opts ...ServerOption) (*PrivateServer, error) {
	bin, err := exec.LookPath("adb")
	if err != nil {
		return nil, errors.New("simulated Android devices need the adb tool: install it (Debian: apt-get install adb, or make setup)")
	}
	p := &PrivateServer{bin: bin, log: slog.Default()}
	for _, o := range opts {
		o(p)
	}
	for range serverStartAttempts {
		var port int
		if port, err = freeLoopbackPort(); err != nil {
			return nil, fmt.Errorf("find a free port for an adb server: %w", err)
		}
		p.port = port
		if err = p.start(ctx); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	kctx, quit := context.WithCancel(context.Background())
	p.quit, p.kept = quit, make(chan struct{})
	go p.keep(kctx)
	return p, nil
}

// start runs the server on p.port and waits until it answers, or kills it.
func (p *PrivateServer) start(ctx context.Context) error {
	cmd := exec.Command(p.bin, "-P", strconv.Itoa(p.port), "nodaemon", "server")
	proc := &serverProc{cmd: cmd, output: &headBuffer{max: serverOutputKept}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = proc.output, proc.output
	cmd.WaitDelay = time.Second // a grandchild holding the output pipe must not hold up Wait
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s nodaemon server: %w", p.bin, err)
	}
	proc.started = time.Now()
	go func() {
		_ = cmd.Wait()
		close(proc.exited)
	}()
	p.mu.Lock()
	p.proc = proc
	p.mu.Unlock()
	if err := p.awaitAnswer(ctx, proc); err != nil {
		p.kill(proc)
		return fmt.Errorf("start an adb server on port %d: %w: %s", p.port, err, proc.output.String())
	}
	return nil
}

// current is the server running now, or the last one.
func (p *PrivateServer) current() *serverProc {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.proc
}

// awaitAnswer polls the server until it answers host:version.
func (p *PrivateServer) awaitAnswer(ctx context.Context, proc *serverProc) error {
	ctx, cancel := context.WithTimeout(ctx, serverStartTimeout)
	defer cancel()
	for {
		qctx, qcancel := context.WithTimeout(ctx, time.Second)
		_, err := hostQuery(qctx, p.Addr(), "host:version")
		qcancel()
		if err == nil {
			return nil
		}
		select {
		case <-proc.exited:
			return fmt.Errorf("the server exited (%v)", proc.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("no answer (%v): %w", err, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Addr is the server's address, for Attach and Watch.
func (p *PrivateServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)) }

func (p *PrivateServer) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, adbCommandTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, p.bin, append([]string{"-P", strconv.Itoa(p.port)}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Connect asks the server to connect to a device on the network (a simulated one here). A
// restarted server is connected to it again.
func (p *PrivateServer) Connect(ctx context.Context, addr string) error {
	if err := p.connect(ctx, addr); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.connected, addr) {
		p.connected = append(p.connected, addr)
	}
	return nil
}

func (p *PrivateServer) connect(ctx context.Context, addr string) error {
	out, err := p.run(ctx, "connect", addr)
	if err != nil || !strings.Contains(out, "connected to") {
		return fmt.Errorf("adb connect %s: %v: %s", addr, err, out)
	}
	return nil
}

// Stop ends the server: kill-server first, then SIGTERM and SIGKILL for a server that does not
// exit (a busy or wedged one may answer nothing). It returns once the server is gone, within
// about 16 s, and logs at WARN each signal it had to send. Calling it again does nothing.
func (p *PrivateServer) Stop() { p.stopOnce.Do(p.stop) }

func (p *PrivateServer) stop() {
	p.quit() // no restart from here on
	<-p.kept
	proc := p.current()
	ctx, cancel := context.WithTimeout(context.Background(), killServerTimeout)
	out, err := p.run(ctx, "kill-server")
	if ctx.Err() != nil {
		err = fmt.Errorf("no answer within %v", killServerTimeout) // rather than "signal: killed"
	}
	cancel()
	if err == nil && proc.waitExit(serverExitTimeout) || proc.waitExit(0) {
		return
	}
	log := p.log.With("adb_server", p.Addr(), "pid", proc.cmd.Process.Pid)
	log.Warn("adb server did not stop on kill-server: sending SIGTERM", "kill_server_err", errText(err), "kill_server_output", out)
	_ = proc.cmd.Process.Signal(syscall.SIGTERM)
	if proc.waitExit(serverTermTimeout) {
		log.Warn("adb server stopped on SIGTERM")
		return
	}
	log.Warn("adb server did not stop on SIGTERM: sending SIGKILL")
	p.kill(proc)
}

// kill sends SIGKILL to proc and waits for it to be reaped.
func (p *PrivateServer) kill(proc *serverProc) {
	_ = proc.cmd.Process.Kill()
	if !proc.waitExit(serverExitTimeout) {
		p.log.Error("adb server survived SIGKILL: end it by hand (kill -9 PID), it holds its port",
			"adb_server", p.Addr(), "pid", proc.cmd.Process.Pid)
	}
}

// waitExit says whether the server exits within d (0: whether it has exited).
func (proc *serverProc) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-proc.exited:
		return true
	case <-t.C:
		return false
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// freeLoopbackPort returns a TCP port of 127.0.0.1 that was free a moment ago, never the
// default adb port.
func freeLoopbackPort() (int, error) {
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if port != DefaultServerPort {
			return port, nil
		}
	}
}

// headBuffer keeps the first max bytes written to it and drops the rest: the server's start-up
// errors, without growing for as long as the server runs.
type headBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *headBuffer) Write(data []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, data[:min(room, len(data))]...)
	}
	return len(data), nil
}

func (b *headBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(string(b.buf))
}
