package android_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/android/apk"
	"github.com/corral-farm/corral/nodes/tools"
)

// app_install cut off mid-push (the node's connection to its adb server drops while the APK
// streams to the phone) failed with the broken stream's words alone: the caller could not
// tell whether the app was half installed or whether calling again would do harm. The error
// says it is safe to call again; nothing was installed; the same call, once the link is back,
// installs the app.
func TestAppInstallCutMidPushSaysItIsSafeToCallAgain(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the push's progress is read from /proc/self/fdinfo")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dev, err := adbsim.StartDevice(ctx, "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	adb, err := android.StartPrivateServer(ctx)
	require.NoError(t, err)
	t.Cleanup(adb.Stop)
	require.NoError(t, adb.Connect(ctx, dev.Addr()))
	link := farmtest.StartLink(t, adb.Addr()) // the node's link to its adb server
	var d *android.Driver
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, err = android.New(ctx, link.Addr(), dev.Serial())
		return err == nil
	}, "the adb server lists %s: %v", dev.Serial(), err)
	t.Cleanup(func() { _ = d.Close() })

	const size = 16 << 20 // several times what the sockets on the way hold (a few MiB)
	path := bigAPK(t, apk.Manifest{Package: "com.example.cut", VersionName: "1.0"}, size)
	install := func() (tools.Output, error) {
		args, _ := json.Marshal(map[string]string{"appUrl": path})
		return tools.DefaultOps()["app_install"].Run(ctx, &tools.Task{Driver: d, Args: args})
	}

	errc := make(chan error, 1)
	go func() { _, err := install(); errc <- err }()
	var pushed int64
	farmtest.Eventually(t, 30*time.Second, func() bool { pushed = readAt(t, path); return pushed > 0 }, "the push reading %s", path)
	link.Pause() // the push stalls mid-file, its bytes held on the way
	pushed = readAt(t, path)
	link.Cut()
	err = <-errc
	require.Error(t, err)
	require.Less(t, pushed, int64(size), "the push had read the whole file before the cut")
	t.Logf("cut after %d of %d bytes read: %v", pushed, size, err)
	assert.Equal(t, broker.CodeDriver, tools.ErrorCode(err))
	assert.Contains(t, err.Error(), "app_install is safe to call again: nothing is installed until the whole file is on the device")
	// The link to the adb server was cut, not the device's cable.
	assert.Contains(t, err.Error(), "is the adb server at")
	assert.NotContains(t, err.Error(), "check the cable")
	assert.NotContains(t, dev.Installed(), "com.example.cut", "installed from a cut push")

	link.Heal()
	link.Resume()
	out, err := install()
	require.NoError(t, err, "the same call again")
	assert.Equal(t, "com.example.cut", out.Data.(tools.AppInstallResult).PackageName)
	assert.True(t, slices.Contains(dev.Installed(), "com.example.cut"))
}

// bigAPK writes an APK of m padded to size bytes with a stored classes.dex of zeros.
func bigAPK(t *testing.T, m apk.Manifest, size int64) string {
	t.Helper()
	built, err := apk.Build(m)
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(built), int64(len(built)))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), m.Package+".apk")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	z := zip.NewWriter(f)
	for _, e := range zr.File {
		require.NoError(t, z.Copy(e))
	}
	w, err := z.CreateHeader(&zip.FileHeader{Name: "classes.dex", Method: zip.Store})
	require.NoError(t, err)
	_, err = io.CopyN(w, zeros{}, size)
	require.NoError(t, err)
	require.NoError(t, z.Close())
	return path
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// readAt is how far this process has read the file at path through a descriptor open on it
// (its position, /proc/self/fdinfo): how much of it a push has sent. 0 when none is open.
func readAt(t *testing.T, path string) int64 {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err != nil || target != path {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
		if err != nil {
			continue // closed meanwhile
		}
		for line := range strings.Lines(string(info)) {
			if v, ok := strings.CutPrefix(line, "pos:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return n
			}
		}
	}
	return 0
}
