package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Every operator command given --check-config checks its flags and arguments, says
// "configuration ok" and stops: against a real farm, the node is not drained, the tap is not
// made, the running task is not aborted, the lease is not revoked, the steps file is not written.
func TestCheckConfigOfOperatorCommandsDoesNothing(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	devs := f.Devices()
	node, held, tapped := devs[0].Node, devs[0].Serial, devs[1].Serial
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	t.Cleanup(nc.Close)

	// A holder runs a long task on one device under its lease: abort and release --force
	// would end them.
	holder := f.Client("holder")
	var lease struct {
		Lease struct {
			Handle string `json:"handle"`
		} `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": held}), &lease)
	sleeping := farmtest.Go(t, holder, "sleep", map[string]any{"serial": held, "lease": lease.Lease.Handle, "seconds": 60})
	var taskID string
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(held)
		if d.Task != nil {
			taskID = d.Task.ID
		}
		return taskID != ""
	}, "the sleep on %s running", held)

	exported := filepath.Join(t.TempDir(), "steps.yaml")
	via := []string{"--nats-url", f.URL, "--log-level", "error", "--check-config"}
	for name, run := range map[string]func() error{
		"drain": func() error { return runDrain(t.Context(), append([]string{node}, via...)) },
		"call": func() error {
			return runCall(t.Context(), append(via, "tap_xy", `{"serial":"`+tapped+`","x":0.5,"y":0.5}`))
		},
		"abort":         func() error { return runAbort(t.Context(), append([]string{held, "--all"}, via...)) },
		"release":       func() error { return runRelease(t.Context(), append([]string{held, "--force"}, via...)) },
		"devices":       func() error { return runDevices(t.Context(), via) },
		"leases":        func() error { return runLeases(t.Context(), via) },
		"tasks":         func() error { return runTasks(t.Context(), via) },
		"tasks export":  func() error { return runTasksExport(t.Context(), append([]string{taskID, "--out", exported}, via...)) },
		"arm calibrate": func() error { return runArmCalibrate(t.Context(), append(via, held)) },
		"arm recover":   func() error { return runArmRecover(t.Context(), append(via, held)) },
		"call gateway": func() error {
			return runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--check-config", "tap_xy", `{"serial":"` + tapped + `","x":0.5,"y":0.5}`})
		},
	} {
		var err error
		stdout := ""
		stderr := captureStderr(t, func() { stdout = captureStdout(t, func() { err = run() }) })
		require.NoError(t, err, name)
		assert.Equal(t, "configuration ok\n", stderr, name)
		assert.Empty(t, stdout, name)
	}

	// The node takes new work.
	ans, err := broker.DrainNode(t.Context(), nc, node, broker.DrainRequest{V: broker.WireVersion, Action: broker.DrainStatus})
	require.NoError(t, err)
	assert.False(t, ans.Draining, "corral drain --check-config drained the node")
	// The sleep still runs under its lease.
	d, _ := f.Gateway().Client.Device(held)
	require.NotNil(t, d.Task, "corral abort --check-config aborted the task")
	assert.Equal(t, taskID, d.Task.ID)
	select {
	case a := <-sleeping:
		t.Fatalf("the sleep ended: %s", farmtest.Text(a.Get(t)))
	default:
	}
	var leases mcp.LeasesResult
	farmtest.Structured(t, farmtest.MustCall(t, holder, "list_leases", map[string]any{}), &leases)
	assert.True(t, slices.ContainsFunc(leases.Leases, func(l mcp.LeaseInfo) bool { return l.Serial == held }),
		"corral release --force --check-config revoked the lease: %+v", leases.Leases)
	assert.NoFileExists(t, exported)
	// No tap was made: a screenshot sent after it is the only task of the device on record.
	require.NoError(t, runCall(t.Context(), []string{"--nats-url", f.URL, "--log-level", "error", "screenshot", `{"serial":"` + tapped + `"}`}))
	h := taskHistory(t, f, tapped, "screenshot")
	for _, r := range h.Tasks {
		assert.NotEqual(t, "tap_xy", r.Tool, "corral call --check-config tapped %s", tapped)
	}

	farmtest.MustCall(t, holder, "abort_task", map[string]any{"serial": held, "lease": lease.Lease.Handle})
	<-sleeping
}

// corral call --check-config checks the arguments it would send, and that --out can be written,
// and a bad one is refused before anything runs.
func TestCallCheckConfigChecksArgumentsAndOut(t *testing.T) {
	via := []string{"--nats-url", "nats://127.0.0.1:1", "--check-config"}
	err := runCall(t.Context(), append(via, "tap_xy", `{"x":`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "arguments must be a JSON object")
	err = runCall(t.Context(), append(via, "tap_xy", `[1,2]`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "got an array")
	err = runCall(t.Context(), append(via, "tap_xy", "{}", "extra"))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "usage: corral call"), err.Error())
	err = runCall(t.Context(), append(via, "--out", "/nonexistent/dir/x.jpg", "screenshot", "{}"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--out /nonexistent/dir/x.jpg: the image could not be written there")
	err = runCall(t.Context(), append(via, "--out", t.TempDir(), "screenshot", "{}"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a directory")
	err = runTasksExport(t.Context(), append(via, "t1", "--out", "/nonexistent/dir/steps.yaml"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the steps file could not be written there")
}

// corral call --out FILE that cannot be written is refused before the tool runs: the screenshot
// is not taken for nothing.
func TestCallOutUnwritableRunsNothing(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	via := []string{"--nats-url", f.URL, "--log-level", "error"}
	err := runCall(t.Context(), append(via, "--out", "/nonexistent/dir/x.jpg", "screenshot", `{"serial":"`+serial+`"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nothing ran")
	// A tap sent after it is the device's only task on record: had the screenshot run, its record
	// would be there before the tap's.
	require.NoError(t, runCall(t.Context(), append(via, "tap_xy", `{"serial":"`+serial+`","x":0.5,"y":0.5}`)))
	h := taskHistory(t, f, serial, "tap_xy")
	assert.Len(t, h.Tasks, 1, "the screenshot refused its --out was taken: %+v", h.Tasks)
	// A file in a directory that exists is written.
	out := filepath.Join(t.TempDir(), "x.jpg")
	require.NoError(t, runCall(t.Context(), append(via, "--out", out, "screenshot", `{"serial":"`+serial+`"}`)))
	assert.FileExists(t, out)
}

// taskHistory waits for the record of a task of tool on serial in f's event stream and returns
// the device's task history.
func taskHistory(t *testing.T, f *farmtest.Farm, serial, tool string) broker.History {
	t.Helper()
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	var h broker.History
	farmtest.Eventually(t, 10*time.Second, func() bool {
		h, err = stores.TaskHistory(t.Context(), broker.HistoryQuery{Serial: serial})
		return err == nil && slices.ContainsFunc(h.Tasks, func(r broker.TaskResult) bool { return r.Tool == tool })
	}, "the record of %s on %s", tool, serial)
	return h
}

// CORRAL_CONFIG names the config file as --config does: its values come after the flags and the
// other CORRAL_* variables; a missing one is an error that names CORRAL_CONFIG.
func TestCORRALCONFIGIsTheConfigFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cfg.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("limit: 7\nstate: leased\n"), 0o600))
	t.Setenv("CORRAL_CONFIG", cfg)
	t.Setenv("CORRAL_STATE", "busy")
	o := newOperatorFlags("devices")
	lf := newListFlags(o, "devices")
	require.NoError(t, o.parse(nil))
	assert.Equal(t, 7, *lf.limit, "the file's value")
	assert.Equal(t, "busy", *lf.state, "CORRAL_STATE before the file")
	o = newOperatorFlags("devices")
	lf = newListFlags(o, "devices")
	require.NoError(t, o.parse([]string{"--limit", "3"}))
	assert.Equal(t, 3, *lf.limit, "the command line before the file")

	// The file's bad value is refused, naming the file.
	require.NoError(t, os.WriteFile(cfg, []byte("limit: -2\n"), 0o600))
	err := runDevices(t.Context(), []string{"--check-config"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--limit -2: give 0 (all) or a positive number (--limit came from key limit of the config file "+cfg)

	// --config wins over CORRAL_CONFIG.
	other := filepath.Join(t.TempDir(), "other.yaml")
	require.NoError(t, os.WriteFile(other, []byte("limit: 5\n"), 0o600))
	o = newOperatorFlags("devices")
	lf = newListFlags(o, "devices")
	require.NoError(t, o.parse([]string{"--config", other}))
	assert.Equal(t, 5, *lf.limit)

	t.Setenv("CORRAL_CONFIG", filepath.Join(t.TempDir(), "missing.yaml"))
	err = runDevices(t.Context(), []string{"--check-config"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `config file of CORRAL_CONFIG="`)
	assert.Contains(t, err.Error(), "no such file")
	err = runGateway(t.Context(), []string{"--check-config"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `CORRAL_CONFIG=`)
}

// Flags from the environment that a command refuses name the variable they came from.
func TestEnvironmentFlagErrorsNameTheirVariable(t *testing.T) {
	for _, c := range []struct {
		env, value string
		run        func() error
		want       string
	}{
		{"CORRAL_LOG_LEVEL", "loud", func() error { return runDevices(t.Context(), []string{"--check-config"}) },
			`--log-level "loud": use debug, info, warn or error (--log-level came from CORRAL_LOG_LEVEL="loud", not the command line)`},
		{"CORRAL_LOG_LEVEL", "loud", func() error { return runGateway(t.Context(), []string{"--check-config"}) },
			`(--log-level came from CORRAL_LOG_LEVEL="loud", not the command line)`},
		{"CORRAL_LIMIT", "-1", func() error { return runDevices(t.Context(), nil) },
			`--limit -1: give 0 (all) or a positive number (--limit came from CORRAL_LIMIT="-1", not the command line)`},
		{"CORRAL_STATE", "bogus", func() error { return runLeases(t.Context(), nil) },
			`--state "bogus": use one of online, leased, busy, unhealthy, offline, draining (--state came from CORRAL_STATE="bogus", not the command line)`},
		{"CORRAL_LIMIT", "0", func() error { return runTasks(t.Context(), nil) },
			`--limit 0: give a positive number (--limit came from CORRAL_LIMIT="0", not the command line)`},
	} {
		t.Run(c.env+"="+c.value, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			err := c.run()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// --check-config resolves the NATS connection settings, reading every file they name, without
// connecting: a file that is not there, or a URL no connection could use, is refused, named by
// where it came from; settings that work pass.
func TestCheckConfigResolvesNATSSettings(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	garbage := filepath.Join(dir, "garbage")
	require.NoError(t, os.WriteFile(garbage, []byte("not a key\n"), 0o600))
	badCtx := filepath.Join(dir, "bad.json")
	require.NoError(t, broker.WriteNATSContext(badCtx, broker.NATSContext{URL: "nats://127.0.0.1:4222", CA: missing}))
	goodCtx := filepath.Join(dir, "good.json")
	require.NoError(t, broker.WriteNATSContext(goodCtx, broker.NATSContext{URL: "nats://127.0.0.1:4222", User: "u", Password: "p"}))
	password := filepath.Join(dir, "password")
	require.NoError(t, os.WriteFile(password, []byte("secret\n"), 0o600))
	// A natscli context by its name, as NATS_CONTEXT takes it: XDG_CONFIG_HOME/nats/context/NAME.json.
	named := map[string]string{"XDG_CONFIG_HOME": dir}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "nats", "context"), 0o700))
	require.NoError(t, broker.WriteNATSContext(filepath.Join(dir, "nats", "context", "farm-admin.json"), broker.NATSContext{URL: "nats://127.0.0.1:4222", User: "u", Password: "p"}))

	commands := map[string]func(args []string) error{
		"gateway": func(a []string) error { return runGateway(t.Context(), a) },
		"node": func(a []string) error {
			return runNode(t.Context(), append([]string{"--sim", "1", "--metrics", ""}, a...))
		},
		"devices": func(a []string) error { return runDevices(t.Context(), a) },
		"drain":   func(a []string) error { return runDrain(t.Context(), append([]string{"n1"}, a...)) },
		"call":    func(a []string) error { return runCall(t.Context(), append(a, "home", "{}")) },
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string // "" passes
	}{
		{"context flag", nil, []string{"--nats-context", missing + ".json"}, "--nats-context: NATS context " + missing + ".json"},
		{"NATS_CONTEXT name", map[string]string{"NATS_CONTEXT": "nosuchname", "XDG_CONFIG_HOME": dir}, nil, `NATS_CONTEXT="nosuchname"`},
		{"creds", nil, []string{"--nats-creds", missing}, "--nats-creds: "},
		{"creds garbage", nil, []string{"--nats-creds", garbage}, "--nats-creds: "},
		{"nkey", nil, []string{"--nats-nkey", garbage}, "--nats-nkey: "},
		{"password file", nil, []string{"--nats-user", "u", "--nats-password-file", missing}, "--nats-password-file: "},
		{"tls ca", nil, []string{"--nats-tls-ca", missing}, "--nats-tls-ca: "},
		{"tls cert", nil, []string{"--nats-tls-cert", garbage, "--nats-tls-key", garbage}, "--nats-tls-cert and --nats-tls-key: "},
		{"context's ca", nil, []string{"--nats-context", badCtx}, "the ca of NATS context " + badCtx},
		{"url from env", map[string]string{"CORRAL_NATS_URL": "nats://u:hunter2@h:99999"}, nil,
			`port 99999 is not a TCP port, 1 to 65535 (NATS listens on 4222 unless told otherwise) (--nats-url came from CORRAL_NATS_URL="nats://u:REDACTED@h:99999", not the command line)`},
		{"NATS_URL", map[string]string{"NATS_URL": "nats://h:0"}, nil, "$NATS_URL: nats://h:0: port 0 is not a TCP port"},
		{"token url", map[string]string{"NATS_URL": "nats://hunter2@h:0"}, nil, "$NATS_URL: nats://REDACTED@h:0: port 0 is not a TCP port"},
		{"no host", nil, []string{"--nats-url", "nats://u:hunter2@:4222"}, "--nats-url: nats://u:REDACTED@:4222 has no host"},
		{"good context", nil, []string{"--nats-context", goodCtx}, ""},
		{"good context name", named, []string{"--nats-context", "farm-admin"}, ""},
		{"context flag name", named, []string{"--nats-context", "nosuchname"}, "--nats-context: NATS context " + filepath.Join(dir, "nats", "context", "nosuchname.json")},
		{"good password", nil, []string{"--nats-url", "127.0.0.1:4222,nats://h2", "--nats-user", "u", "--nats-password-file", password}, ""},
	} {
		for name, run := range commands {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				noNATSSettings(t)
				for k, v := range c.env {
					t.Setenv(k, v)
				}
				var err error
				out := captureStderr(t, func() { err = run(append([]string{"--check-config", "--log-level", "error"}, c.args...)) })
				if c.want == "" {
					require.NoError(t, err)
					assert.Equal(t, "configuration ok\n", out)
					return
				}
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.want)
				assert.NotContains(t, err.Error(), "hunter2")
				assert.NotContains(t, err.Error(), "secret")
			})
		}
	}
	// With --gateway, the client commands do not use NATS: its settings are not theirs.
	require.NoError(t, runDevices(t.Context(), []string{"--check-config", "--gateway", "http://127.0.0.1:1/mcp", "--nats-creds", missing}))
}

// A NATS URL that does not parse because of its password ('#', '/' or '?' in it end the
// password early for url.Parse, which then quotes its start as the port) is refused without
// any of the password.
func TestCheckConfigHidesAPasswordItCannotParse(t *testing.T) {
	for _, u := range []string{"nats://u:hunt#er@h:4222", "nats://u:hunt/er@h:4222", "u:hunt?er@h", "127.0.0.1:4222,nats://u:hunt#er@h"} {
		err := runDevices(t.Context(), []string{"--check-config", "--nats-url", u})
		require.Error(t, err, u)
		assert.Contains(t, err.Error(), "u:REDACTED@h", u)
		assert.Contains(t, err.Error(), `is not a URL: the URL does not parse: invalid port "…" after host`, u)
		assert.NotContains(t, err.Error(), "hunt", u)
	}
	err := runDevices(t.Context(), []string{"--check-config", "--nats-url", "nats://h:port"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `server 1 is not a URL: invalid port ":port" after host`, "without a password, url.Parse says what is wrong")
}
