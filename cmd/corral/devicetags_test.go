package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --device-tags is checked before a node starts, on corral node and corral up alike, from the
// command line, CORRAL_DEVICE_TAGS or the --config file (a YAML list too): an empty item, a tag
// longer than a policy's, too many, and the drivers' own sim and web exit 2 naming the value;
// good tags pass, trimmed and each once.
func TestDeviceTagsChecked(t *testing.T) {
	noNATSSettings(t)
	nodeArgs := []string{"node", "--check-config", "--sim", "1", "--adb", "off", "--usbmuxd", "off", "--metrics", "", "--nats-url", "nats://127.0.0.1:1"}
	upArgs := []string{"up", "--check-config", "--data", t.TempDir(), "--nats-port", "-1", "--http", "127.0.0.1:0"}
	long := strings.Repeat("x", 65)
	var seventeen []string
	for i := range 17 {
		seventeen = append(seventeen, fmt.Sprintf("pool-%d", i))
	}
	many := strings.Join(seventeen, ",")
	for _, c := range []struct{ tags, want string }{
		{"pool-a,,lab", `--device-tags "pool-a,,lab": item 2 is empty`},
		{"pool-a," + long, `tag "` + long + `": each tag must be 1 to 64 bytes long`},
		{"sim", `tag "sim" is the drivers' own`},
		{"pool-a, web", `tag "web" is the drivers' own`},
		{many, "17 tags: give at most 16"},
	} {
		for _, base := range [][]string{nodeArgs, upArgs} {
			var code int
			out := captureOutput(t, func() { code = realMain(append(base, "--device-tags", c.tags)) })
			assert.Equal(t, 2, code, "corral %s --device-tags %q: %s", base[0], c.tags, out)
			assert.Contains(t, out, c.want, "corral %s --device-tags %q", base[0], c.tags)
			assert.NotContains(t, out, "configuration ok")
		}
	}
	t.Setenv("CORRAL_DEVICE_TAGS", "sim")
	var code int
	out := captureOutput(t, func() { code = realMain(nodeArgs) })
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, `came from CORRAL_DEVICE_TAGS="sim"`)
	t.Setenv("CORRAL_DEVICE_TAGS", "")

	config := filepath.Join(t.TempDir(), "node.yaml")
	require.NoError(t, os.WriteFile(config, []byte("device-tags: [pool-a, lab-2]\n"), 0o600))
	out = captureOutput(t, func() { code = realMain(append(nodeArgs, "--config", config)) })
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "configuration ok")

	f := newFlags("node")
	s := f.nodeFlags(0, nil)
	require.NoError(t, f.Parse([]string{"--device-tags", " pool-a ,lab-2,pool-a"}))
	tags, err := s.tags()
	require.NoError(t, err)
	assert.Equal(t, []string{"pool-a", "lab-2"}, tags)
}
