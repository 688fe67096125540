package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call --out FILE writes each image of a result that holds several to its own numbered
// file (one FILE would keep only the last), and says which.
func TestCallOutWritesEachImageOfSeveral(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	c := f.Client("marker")
	farmtest.MustCall(t, c, "sequence", map[string]any{"serial": serial, "steps": []any{
		map[string]any{"tool_name": "tap_xy", "args": map[string]any{"x": 0.3, "y": 0.3, "pre_mark_operation": true}},
		map[string]any{"tool_name": "tap_xy", "args": map[string]any{"x": 0.6, "y": 0.6, "pre_mark_operation": true}},
	}})
	var latest struct{ TaskID string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", map[string]any{}), &latest)
	require.NotEmpty(t, latest.TaskID)

	out := filepath.Join(t.TempDir(), "m.jpg")
	var err error
	said := captureOutput(t, func() {
		err = runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error", "--out", out,
			"get_task_result", `{"taskId":"` + latest.TaskID + `","markedScreenshots":true}`})
	})
	require.NoError(t, err, said)
	first, second := filepath.Join(filepath.Dir(out), "m-1.jpg"), filepath.Join(filepath.Dir(out), "m-2.jpg")
	assert.Contains(t, said, "2 images: writing each to its own file, "+first+" to "+second)
	for _, path := range []string{first, second} {
		assert.Contains(t, said, "image written to "+path)
		b, err := os.ReadFile(path)
		if assert.NoError(t, err) {
			assert.Equal(t, []byte{0xff, 0xd8}, b[:2], "%s is a JPEG", path)
		}
	}
	assert.NoFileExists(t, out, "with several images, FILE itself is not written")
}

// corral call --out FILE on a result that holds no image says so and fails (exit 1), so that a
// script notices the file was never written.
func TestCallOutWithoutAnImageFails(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	out := filepath.Join(t.TempDir(), "x.jpg")
	var code int
	said := captureOutput(t, func() {
		code = realMain([]string{"call", "--gateway", f.Gateway().MCPURL, "--log-level", "error", "--out", out,
			"home", `{"serial":"` + serial + `"}`})
	})
	assert.Equal(t, 1, code, said)
	assert.Contains(t, said, "corral call: --out "+out+": the result of home holds no image, so "+out+" was not written")
	assert.NoFileExists(t, out)
}

func TestNumberedFile(t *testing.T) {
	for out, want := range map[string]string{"m.jpg": "m-2.jpg", "shots/m": "shots/m-2", "a.b/m.png": "a.b/m-2.png", ".jpg": ".jpg-2"} {
		assert.Equal(t, want, numberedFile(out, 2), out)
	}
}
