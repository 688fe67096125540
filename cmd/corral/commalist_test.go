package main

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// commaListCommands are the flags of the commands with comma-list flags, as they define them.
func commaListCommands() map[string]func() *flags {
	return map[string]func() *flags{
		"gateway": func() *flags { f := newFlags("gateway"); f.natsFlags(); f.gatewayFlags(); return f },
		"node": func() *flags {
			f := newFlags("node")
			f.natsFlags()
			f.nodeFlags(0, platforms())
			f.siteFlags()
			return f
		},
		"devices": func() *flags { o := newOperatorFlags("devices"); newListFlags(o, "devices"); return o.flags },
	}
}

// A comma-list flag in a --config file is its command-line text or a YAML list, the same
// values either way, each scalar as written (007 stays 007). Before, a list was refused ("a
// list, and --sites takes one value") for every one of them.
func TestCommaListFlagsFromAConfigFile(t *testing.T) {
	noNATSSettings(t)
	for _, c := range []struct {
		command, flag, text, list, want string
	}{
		{"gateway", "sites", "paris, tokyo", "[paris, tokyo]", "paris,tokyo"},
		{"gateway", "tools", "tap_xy,take_screenshot", "\n  - tap_xy\n  - take_screenshot", "tap_xy,take_screenshot"},
		{"gateway", "allowed-origins", `"*.example.com,https://app.example.com"`, `["*.example.com", "https://app.example.com"]`, "*.example.com,https://app.example.com"},
		{"gateway", "nats-url", "nats://a:4222,nats://b:4222", "[nats://a:4222, nats://b:4222]", "nats://a:4222,nats://b:4222"},
		{"node", "app-sources", ".example.com,/srv/apps", "[.example.com, /srv/apps]", ".example.com,/srv/apps"},
		{"node", "web-allow", "example.org,docs.example.org", "[example.org, docs.example.org]", "example.org,docs.example.org"},
		{"node", "hub", "nats-leaf://a:7422,nats-leaf://b:7422", "[nats-leaf://a:7422, nats-leaf://b:7422]", "nats-leaf://a:7422,nats-leaf://b:7422"},
		{"devices", "tags", "007,lab", "[007, lab]", "007,lab"},
		{"devices", "tags", "2026-01-02", "[2026-01-02]", "2026-01-02"}, // not a time
	} {
		for _, body := range []string{c.text, c.list} {
			f := commaListCommands()[c.command]()
			require.NoError(t, f.parse([]string{"--config", configFile(t, c.flag+": "+body+"\n")}), "%s: %s", c.flag, body)
			assert.Equal(t, splitList(c.want), splitList(f.Lookup(c.flag).Value.String()), "%s: %s", c.flag, body)
		}
	}

	// A value of one flag reads as written too.
	f := commaListCommands()["node"]()
	require.NoError(t, f.parse([]string{"--config", configFile(t, "node-id: 007\n")}))
	assert.Equal(t, "007", f.Lookup("node-id").Value.String())

	// corral gateway runs with them, and nats-auth's --url too.
	var code int
	out := captureOutput(t, func() {
		code = realMain([]string{"gateway", "--check-config", "--config",
			configFile(t, "nats-url: [nats://127.0.0.1:1, nats://127.0.0.1:2]\ntools: [tap_xy, take_screenshot]\nallowed-origins: [corral.example.com]\n")})
	})
	assert.Equal(t, 0, code, out)
	dir := filepath.Join(t.TempDir(), "auth")
	captureStdout(t, func() {
		require.NoError(t, runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "n1", "--config",
			configFile(t, "url: [nats://a:4222, nats://b:4222]\n")}))
	})
	admin, err := broker.ReadNATSContext(filepath.Join(dir, "admin.json"))
	require.NoError(t, err)
	assert.Equal(t, "nats://a:4222,nats://b:4222", admin.URL)
}

// Every flag whose help says it is comma-separated takes a --config list: a new one that is
// not a commaList fails here.
func TestEveryCommaSeparatedFlagIsACommaList(t *testing.T) {
	for name, build := range commaListCommands() {
		f := build()
		f.VisitAll(func(fl *flag.Flag) {
			if strings.Contains(fl.Usage, "comma-separated") || strings.Contains(fl.Usage, "NAME,NAME") {
				assert.True(t, f.commaLists[fl.Name], "corral %s --%s", name, fl.Name)
			}
		})
	}
}

// A comma-list given as a list of something else than values, or a set of keys, is refused,
// exit 2, naming the item; a value YAML cannot read for its leading * says to quote it.
func TestCommaListShapesRefused(t *testing.T) {
	noNATSSettings(t)
	for _, c := range []struct{ body, want string }{
		{"sites: [a, '']", "sites: item 2: empty: write a value or leave the item out"},
		{"sites: [a, null]", "sites: item 2: empty (null)"},
		{"sites: [a, [b]]", "sites: item 2: a list in a list"},
		{"sites: [a, {b: c}]", "sites: item 2: a set of keys in a list"},
		{"sites: []", "sites: an empty list: give an item, or leave the key out"},
		{"sites: {a: [n1]}", "sites: a set of keys, and --sites takes a list of values: write them as a list, [a, b], or as the command line takes them, a,b"},
		{"tools: [tap_xy, no_such_tool]", `--tools: unknown tool "no_such_tool"`},
	} {
		file := configFile(t, c.body+"\n")
		var code int
		out := captureOutput(t, func() {
			code = realMain([]string{"gateway", "--nats-url", "nats://127.0.0.1:1", "--check-config", "--config", file})
		})
		assert.Equal(t, 2, code, "%s: %s", c.body, out)
		assert.Contains(t, out, c.want, c.body)
	}
	var code int
	out := captureOutput(t, func() {
		code = realMain([]string{"gateway", "--nats-url", "nats://127.0.0.1:1", "--check-config", "--config",
			configFile(t, "allowed-origins: *.example.com, b.example.com\n")})
	})
	assert.NotEqual(t, 0, code, out)
	assert.Contains(t, out, `must be quoted: "*.example.com"`)
}
