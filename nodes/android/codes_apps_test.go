package android

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// Uninstalling an app that came with the phone and installing a file that is no APK are the
// caller's mistakes: bad_input through the tools and the real driver behind the real adb
// server, with what to do; not driver_error, which counts against the device.
func TestAppMistakesOnAndroidAreBadInput(t *testing.T) {
	_, d := newDevice(t)
	run := func(tool string, args any) error {
		t.Helper()
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tools.DefaultOps()[tool].Run(t.Context(), &tools.Task{Driver: d, Args: raw})
		return err
	}
	err := run("app_uninstall", map[string]string{"packageName": "com.corral.weather"})
	if got := tools.ErrorCode(err); got != broker.CodeBadInput || !errors.Is(err, ErrSystemApp) {
		t.Errorf("app_uninstall of a system app: code %s, want bad_input (%v)", got, err)
	}
	if err == nil || !strings.Contains(err.Error(), "com.corral.weather is a system app") || !strings.Contains(err.Error(), "app_clear") {
		t.Errorf("app_uninstall of a system app: %v", err)
	}

	notAPK := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notAPK, []byte("not an APK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run("app_install", map[string]string{"appUrl": notAPK})
	if got := tools.ErrorCode(err); got != broker.CodeBadInput || !errors.Is(err, ErrAPKRefused) {
		t.Errorf("app_install of a file that is no APK: code %s, want bad_input (%v)", got, err)
	}
	if err == nil || !strings.Contains(err.Error(), "INSTALL_PARSE_FAILED_NOT_APK") || !strings.Contains(err.Error(), "built for Android") {
		t.Errorf("app_install of a file that is no APK: %v", err)
	}
}

// Only the failures that are the APK's fault are the caller's mistake.
func TestAPKRefused(t *testing.T) {
	for out, mistake := range map[string]bool{
		"Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/local/tmp/x.apk]":               true,
		"Failure [INSTALL_FAILED_OLDER_SDK: Requires newer sdk version #35 (current version is #34)]": true,
		"Failure [INSTALL_FAILED_VERSION_DOWNGRADE]":                                                  true,
		"Failure [INSTALL_FAILED_NO_MATCHING_ABIS: INSTALL_FAILED_...]":                               true,
		"Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]":                                               false,
		"Failure [INSTALL_FAILED_INTERNAL_ERROR: Permission Denied]":                                  false,
		"Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user]":                          false,
		"Success": false,
	} {
		if got := apkRefused(out) != ""; got != mistake {
			t.Errorf("apkRefused(%q) = %v, want %v", out, got, mistake)
		}
	}
}
