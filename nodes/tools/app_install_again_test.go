package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// Only a failure on the device's side says app_install may be called again (the cut push
// itself: nodes/android TestAppInstallCutMidPushSaysItIsSafeToCallAgain); the caller's own
// mistake and an aborted call keep their words.
func TestAppInstallSaysWhenItIsSafeToCallAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "com.example.app.apk")
	if err := os.WriteFile(path, []byte("PK-apk"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		err   error
		code  string
		again bool
	}{
		{"a broken stream", errors.New("write tcp 127.0.0.1:5037: broken pipe"), broker.CodeDriver, true},
		{"not an APK", fmt.Errorf("install app: %w: INSTALL_PARSE_FAILED_NOT_APK", device.ErrBadInput), broker.CodeBadInput, false},
		// The answer's code is the OpError's, not what it wraps: the note follows the code.
		{"a driver error around bad input", &OpError{Code: broker.CodeDriver, Msg: "install app",
			Err: fmt.Errorf("%w: pm install answered nothing", device.ErrBadInput)}, broker.CodeDriver, true},
		{"bad input around a driver's words", &OpError{Code: broker.CodeBadInput, Msg: "install app",
			Err: errors.New("INSTALL_FAILED_OLDER_SDK")}, broker.CodeBadInput, false},
		{"unsupported", fmt.Errorf("install app: %w", device.ErrUnsupported), broker.CodeUnsupported, false},
		{"aborted", context.Canceled, broker.CodeDriver, false},
	} {
		d := newAbled()
		d.InstallAppFn = func(context.Context, string) (device.InstalledApp, error) { return device.InstalledApp{}, c.err }
		_, _, err := runInstall(t, context.Background(), d, path)
		wantCode(t, err, c.code)
		if got := strings.Contains(err.Error(), againSafe); got != c.again {
			t.Errorf("%s: says it is safe to call again: %v, want %v (%v)", c.name, got, c.again, err)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%s: %v does not wrap the driver's error", c.name, err)
		}
	}
}
