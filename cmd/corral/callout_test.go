package main

import (
	"io"
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
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", map[string]any{"anyTool": true}), &latest)
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

// corral call --out - writes the image to standard output, alone (the text goes to standard
// error), as corral run --json - does, instead of a file named "-".
func TestCallOutDashWritesTheImageToStandardOutput(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	t.Chdir(t.TempDir())
	var err error
	var stderr string
	stdout := captureStdout(t, func() {
		stderr = captureStderr(t, func() {
			err = runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error", "--out", "-",
				"screenshot", `{"serial":"` + serial + `"}`})
		})
	})
	require.NoError(t, err, stderr)
	require.Greater(t, len(stdout), 2, stderr)
	assert.Equal(t, "\xff\xd8", stdout[:2], "standard output holds the JPEG alone")
	assert.NoFileExists(t, "-")
}

// captureStdout and captureStderr return what fn wrote to standard output, or error, alone.
func captureStdout(t *testing.T, fn func()) string { return captureFile(t, &os.Stdout, fn) }
func captureStderr(t *testing.T, fn func()) string { return captureFile(t, &os.Stderr, fn) }

func captureFile(t *testing.T, file **os.File, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	saved := *file
	*file = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { *file = saved }()
	fn()
	*file = saved
	require.NoError(t, w.Close())
	return <-done
}
