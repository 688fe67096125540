package android

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// PrivateServer is an adb server of our own on a free loopback port, for simulated devices: a
// user's server on 5037 is never disturbed.
type PrivateServer struct {
	bin  string
	port int
}

// StartPrivateServer starts the adb tool's server on a free port of 127.0.0.1.
func StartPrivateServer(ctx context.Context) (*PrivateServer, error) {
	bin, err := exec.LookPath("adb")
	if err != nil {
		return nil, errors.New("simulated Android devices need the adb tool: install it (Debian: apt-get install adb, or make setup)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	p := &PrivateServer{bin: bin, port: port}
	if out, err := p.run(ctx, "start-server"); err != nil {
		return nil, fmt.Errorf("start an adb server on port %d: %w: %s", port, err, out)
	}
	return p, nil
}

// Addr is the server's address, for Attach and Watch.
func (p *PrivateServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)) }

func (p *PrivateServer) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p.bin, append([]string{"-P", strconv.Itoa(p.port)}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Connect asks the server to connect to a device on the network (a simulated one here).
func (p *PrivateServer) Connect(ctx context.Context, addr string) error {
	out, err := p.run(ctx, "connect", addr)
	if err != nil || !strings.Contains(out, "connected to") {
		return fmt.Errorf("adb connect %s: %v: %s", addr, err, out)
	}
	return nil
}

// Stop kills the server.
func (p *PrivateServer) Stop() { _, _ = p.run(context.Background(), "kill-server") }
