package android

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// A server that answers nothing (stopped here with SIGSTOP, as a wedged one under 500 devices
// was) outlives kill-server; Stop must still end it and free its port. The test finds the
// server from the port, as an operator would, not from PrivateServer's own bookkeeping.
func TestPrivateServerStopEndsAServerThatIgnoresKillServer(t *testing.T) {
	adbTool(t)
	logs := &logtest.Buffer{}
	srv := startPrivateServer(t, slog.New(slog.NewTextHandler(logs, nil)))
	pid := listenerPID(t, srv.port)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { endIfStillListening(srv.port, pid) })

	stopServerWithin(t, srv, 60*time.Second)

	waitFor(t, 10*time.Second, fmt.Sprintf("adb server pid %d gone", pid), func() bool { return processGone(pid) })
	waitFor(t, 10*time.Second, fmt.Sprintf("port %d free", srv.port), func() bool { return portFree(srv.port) })
	for _, want := range []string{"did not stop on kill-server: sending SIGTERM", "kill_server_err=\"no answer within 3s\"", "sending SIGKILL", "pid=" + strconv.Itoa(pid)} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// A server that answers ends on kill-server alone, with nothing logged.
func TestPrivateServerStopsOnKillServer(t *testing.T) {
	adbTool(t)
	logs := &logtest.Buffer{}
	srv := startPrivateServer(t, slog.New(slog.NewTextHandler(logs, nil)))
	pid := listenerPID(t, srv.port)
	t.Cleanup(func() { endIfStillListening(srv.port, pid) })

	stopServerWithin(t, srv, 30*time.Second)
	srv.Stop() // a second Stop does nothing

	waitFor(t, 10*time.Second, fmt.Sprintf("adb server pid %d gone", pid), func() bool { return processGone(pid) })
	waitFor(t, 10*time.Second, fmt.Sprintf("port %d free", srv.port), func() bool { return portFree(srv.port) })
	if logs.String() != "" {
		t.Errorf("a clean stop logged:\n%s", logs)
	}
}

// A node that crashes never runs Stop: its server must die with it rather than hold its port
// (dieWithParent). The node here is this test binary run again as a helper, killed with SIGKILL.
func TestPrivateServerDiesWithACrashedNode(t *testing.T) {
	adbTool(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	node := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestPrivateServerHelperNode$")
	node.Env = append(os.Environ(), privateServerHelperEnv+"=1")
	node.Stderr = os.Stderr
	stdout, err := node.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Process.Kill(); _ = node.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	port, convErr := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "port "))
	if err != nil || convErr != nil {
		t.Fatalf("the helper node did not tell its server's port: %q, %v, %v", line, err, convErr)
	}
	pid := listenerPID(t, port)
	t.Cleanup(func() { endIfStillListening(port, pid) })

	if err := node.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = node.Wait()

	waitFor(t, 10*time.Second, fmt.Sprintf("adb server pid %d gone", pid), func() bool { return processGone(pid) })
	waitFor(t, 10*time.Second, fmt.Sprintf("port %d free", port), func() bool { return portFree(port) })
}

const privateServerHelperEnv = "CORRAL_TEST_PRIVATE_SERVER_HELPER"

// TestPrivateServerHelperNode is the node of TestPrivateServerDiesWithACrashedNode: it starts
// a private server, prints its port and waits to be killed. Run alone, it does nothing.
func TestPrivateServerHelperNode(t *testing.T) {
	if os.Getenv(privateServerHelperEnv) == "" {
		t.Skip("the helper node of TestPrivateServerDiesWithACrashedNode")
	}
	srv := startPrivateServer(t, slog.New(slog.DiscardHandler))
	fmt.Printf("port %d\n", srv.port)
	time.Sleep(time.Minute) // until the test kills this process; a minute bounds a lost helper
	srv.Stop()
}

func startPrivateServer(t *testing.T, log *slog.Logger) *PrivateServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv, err := StartPrivateServer(ctx, WithServerLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// stopServerWithin runs srv.Stop and fails the test if it has not returned within d.
func stopServerWithin(t *testing.T, srv *PrivateServer, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Stop()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("Stop has not returned after %v", d)
	}
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not %s after %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// endIfStillListening kills the process pid if it still holds port: what a failed test left.
func endIfStillListening(port, pid int) {
	if inode := listeningInode(port); inode != "" && holdsSocket(pid, inode) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
}

// listenerPID returns the process that listens on 127.0.0.1:port, from /proc.
func listenerPID(t *testing.T, port int) int {
	t.Helper()
	inode := listeningInode(port)
	if inode == "" {
		t.Fatalf("nothing listens on 127.0.0.1:%d", port)
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(dir))
		if holdsSocket(pid, inode) {
			return pid
		}
	}
	t.Fatalf("no process of ours holds the socket listening on port %d", port)
	return 0
}

// listeningInode returns the inode of the socket listening on 127.0.0.1:port, or "".
func listeningInode(port int) string {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return ""
	}
	defer f.Close()
	local := fmt.Sprintf("0100007F:%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) > 9 && fields[1] == local && fields[3] == "0A" {
			return fields[9]
		}
	}
	return ""
}

func holdsSocket(pid int, inode string) bool {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if target, _ := os.Readlink(fd); target == "socket:["+inode+"]" {
			return true
		}
	}
	return false
}

// processGone says whether pid has exited (a zombie counts: it holds nothing).
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] == "Z"
}

func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}
