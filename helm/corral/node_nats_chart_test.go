package chart_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// chartNode is corral node started as the chart's node container: its flags (on loopback,
// without adb, one simulated phone) and its CORRAL_* environment, with the NATS URL of the
// test's server and the password file holding the Secret's node key.
type chartNode struct {
	cmd    *exec.Cmd
	out    *bytes.Buffer
	exited chan struct{}
	addr   string
}

func startChartNode(t *testing.T, node object, url, password, id string, override map[string]string) *chartNode {
	t.Helper()
	bin, err := corralBin()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"node", "--node-id=" + id, "--metrics=" + addr, "--adb=off", "--sim=1"}
	for _, a := range node["args"].([]any) {
		if f := str(a); !strings.HasPrefix(f, "--node-id") && !strings.HasPrefix(f, "--metrics") && !strings.HasPrefix(f, "--adb") &&
			!strings.HasPrefix(f, "--sim=") {
			args = append(args, f)
		}
	}
	return startChartProcess(t, bin, args, node, addr, url, password, override)
}

// startChartProcess runs corral with args and container's CORRAL_* environment (secrets and
// field references left out), NATS at url with password from a file, override's values
// instead of the chart's; its HTTP listens on addr.
func startChartProcess(t *testing.T, bin string, args []string, container object, addr, url, password string, override map[string]string) *chartNode {
	t.Helper()
	pwFile := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pwFile, []byte(password), 0o600); err != nil {
		t.Fatal(err)
	}
	vars, _ := env(container)
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	for k, v := range vars {
		if !strings.HasPrefix(k, "CORRAL_") || strings.HasPrefix(v, "secret:") || strings.HasPrefix(v, "field:") {
			continue
		}
		switch k {
		case "CORRAL_NATS_URL":
			v = url
		case "CORRAL_NATS_PASSWORD_FILE":
			v = pwFile
		}
		if o, ok := override[k]; ok {
			v = o
		}
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	n := &chartNode{cmd: cmd, out: &bytes.Buffer{}, exited: make(chan struct{}), addr: addr}
	cmd.Stdout, cmd.Stderr = n.out, n.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(n.exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-n.exited })
	return n
}

// ready waits for the node's /readyz to answer 200; a node that exits first fails the test.
func (n *chartNode) ready(t *testing.T, what string) {
	t.Helper()
	client := http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-n.exited:
			t.Fatalf("%s: corral node exited (%v) before it was ready:\n%s", what, n.cmd.ProcessState, n.out)
		default:
		}
		if resp, err := client.Get("http://" + n.addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: corral node not ready within a minute:\n%s", what, n.out)
		}
		time.Sleep(50 * time.Millisecond) // polling a deadline: the node is starting
	}
}

// stop interrupts the node (it releases its claim) and waits for it to exit.
func (n *chartNode) stop(t *testing.T) {
	t.Helper()
	_ = n.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-n.exited:
	case <-time.After(time.Minute):
		t.Fatalf("corral node did not stop within a minute of SIGINT:\n%s", n.out)
	}
}

// TestChartNodeStartsAsTheChartsNATSUser: corral node, with the node container's flags and
// environment as the chart renders them (the shared node user, CORRAL_NATS_REPLICAS), starts
// against nats-server run from the chart's own configuration and users. The node user may
// create Corral's stores but not update them: a node that updated them (CreateOrUpdate, to
// apply its replicas) exited at start, so the DaemonSet's pods crash-looped. With the stores
// absent it creates them with its replicas; with them present it starts and leaves them; with
// them at other replicas than it is given (the default values' 3 on stores of 1) it leaves
// them too, says so once, and starts.
func TestChartNodeStartsAsTheChartsNATSUser(t *testing.T) {
	defaults := render(t, valuesCase{name: "default"})
	defNode := container(t, dig(defaults.must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object), "node")
	defVars, _ := env(defNode)
	if defVars["CORRAL_NATS_REPLICAS"] != "3" {
		t.Fatalf("default values: the node's CORRAL_NATS_REPLICAS is %q, want 3 (the bundled cluster's size)", defVars["CORRAL_NATS_REPLICAS"])
	}

	// One server (nats.bundled.replicas=1, as demo-simulated.yaml): the stores it can make are R1.
	a := renderedNATSAuth(t, valuesCase{name: "one-server", sets: []string{"nats.bundled.replicas=1"}})
	url := startNATS(t, a)
	_, password := a.podUser(t, "DaemonSet/"+fullname+"-node", broker.RoleNode)
	node := container(t, dig(a.m.must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object), "node")
	if vars, _ := env(node); vars["CORRAL_NATS_REPLICAS"] != "1" {
		t.Fatalf("one server: the node's CORRAL_NATS_REPLICAS is %q, want 1", vars["CORRAL_NATS_REPLICAS"])
	}
	gw := connect(t, url, broker.UserName(broker.RoleGateway, broker.AnyNode), a.passwords[broker.RoleGateway])
	js, err := jetstream.New(gw.Conn)
	if err != nil {
		t.Fatal(err)
	}
	registry := "KV_" + broker.RegistryBucket
	replicasOf := func(stream string) int {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		s, err := js.Stream(ctx, stream)
		if err != nil {
			t.Fatalf("stream %s: %v", stream, err)
		}
		return s.CachedInfo().Config.Replicas
	}
	const warned = "stores keep other replicas than --nats-replicas asks"

	// No stores: the node creates them, with its replicas.
	n := startChartNode(t, node, url, password, "chart-fresh", nil)
	n.ready(t, "stores absent")
	n.stop(t)
	if r := replicasOf(registry); r != 1 {
		t.Errorf("stores absent: the node made %s with %d replicas, want 1", registry, r)
	}
	if strings.Contains(n.out.String(), warned) {
		t.Errorf("stores absent: the node warned of other replicas:\n%s", n.out)
	}

	// The stores there, with the replicas asked: the node starts, and says nothing of them.
	n = startChartNode(t, node, url, password, "chart-again", nil)
	n.ready(t, "stores present")
	n.stop(t)
	if strings.Contains(n.out.String(), warned) {
		t.Errorf("stores present with the replicas asked: the node warned of other replicas:\n%s", n.out)
	}

	// The stores there with other replicas (the default values' 3): left as they are, said once.
	n = startChartNode(t, node, url, password, "chart-other", map[string]string{"CORRAL_NATS_REPLICAS": defVars["CORRAL_NATS_REPLICAS"]})
	n.ready(t, "stores present with other replicas")
	n.stop(t)
	out := n.out.String()
	if strings.Count(out, warned) != 1 || !strings.Contains(out, registry+"=1") || !strings.Contains(out, "level=WARN") {
		t.Errorf("stores of 1 replica, the node given 3: want one WARN %q naming %s=1:\n%s", warned, registry, out)
	}
	if r := replicasOf(registry); r != 1 {
		t.Errorf("the node given 3 replicas changed %s to %d", registry, r)
	}
}
