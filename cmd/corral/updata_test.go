package main

import (
	"context"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral up whose --nats-port is taken fails, and leaves --data as it found it: a directory it
// made is gone (no lock, no fresh passwords), an empty one stays empty, and one with a farm's
// files keeps them all, as they were, with nothing added.
func TestUpWithATakenNATSPortLeavesTheDataDirAsItWas(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = taken.Close() })
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	up := func(data string) {
		t.Helper()
		err := runUp(t.Context(), []string{"--data", data, "--nats-port", port, "--http", "127.0.0.1:0",
			"--sim", "1", "--adb", "off", "--usbmuxd", "off", "--log-level", "error"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "port "+port+" on 127.0.0.1 is in use")
	}

	root := t.TempDir()
	fresh := filepath.Join(root, "new", "data")
	up(fresh)
	_, err = os.Stat(filepath.Join(root, "new"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "the data directory it made, and its parent, are still there")

	empty := filepath.Join(root, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	up(empty)
	assert.Empty(t, tree(t, empty), "files left in an empty --data")

	farm := filepath.Join(root, "farm") // a farm's, from a corral up that started and stopped
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runUp(ctx, []string{"--data", farm, "--nats-port", "-1", "--http", "127.0.0.1:0",
			"--sim", "1", "--adb", "off", "--usbmuxd", "off", "--log-level", "error"})
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(farm, "nats", "admin.json"))
		return err == nil
	}, 60*time.Second, 20*time.Millisecond, "the farm never started")
	cancel()
	if err := <-done; err != nil {
		require.ErrorIs(t, err, context.Canceled)
	}
	require.NoError(t, os.WriteFile(filepath.Join(farm, "notes"), []byte("mine"), 0o600))
	before := tree(t, farm)
	up(farm)
	after := tree(t, farm)
	assert.Contains(t, after, dataLockFile, "the farm's lock file is gone")
	after[dataLockFile] = before[dataLockFile] // it holds the pid of its last holder
	assert.Equal(t, before, after, "a farm's --data changed by a failed start")
}

// tree is dir's files, by path within it, with their contents ("/" for a directory).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			out[rel] = "/"
			return nil
		}
		b, err := os.ReadFile(path)
		out[rel] = string(b)
		return err
	}))
	return out
}
