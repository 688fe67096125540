package tools

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// get_foreground_app names what the driver says is in front, and changes nothing.
func TestGetForegroundApp(t *testing.T) {
	d := newAbled()
	for _, c := range []struct{ fg, pkg, msg string }{
		{"com.example.app", "com.example.app", "com.example.app is in front"},
		{" com.example.app\n", "com.example.app", "com.example.app is in front"},
		{"com.google.android.apps.nexuslauncher", "com.google.android.apps.nexuslauncher",
			"the home screen (com.google.android.apps.nexuslauncher) is in front"},
		{"com.android.systemui", "com.android.systemui",
			"the system UI (com.android.systemui) is in front: the phone may be locked or a system dialog open"},
	} {
		d.ForegroundFn = func(context.Context) (string, error) { return c.fg, nil }
		res := mustRun(t, "get_foreground_app", d, `{}`)
		assert.Equal(t, map[string]any{"packageName": c.pkg, "message": c.msg}, res, c.fg)
	}
	for _, call := range d.Calls() {
		assert.Equal(t, "ForegroundApp", call, "a query changes nothing")
	}

	// Nothing open (a browser device's last tab closed) is an answer, not a failure.
	for _, fg := range []string{"", " "} {
		d.ForegroundFn = func(context.Context) (string, error) { return fg, nil }
		res := mustRun(t, "get_foreground_app", d, `{}`)
		assert.Equal(t, map[string]any{"packageName": "",
			"message": "nothing is in front: no app is open (on a browser device, no tab); app_launch opens one"}, res, "%q", fg)
	}

	d.ForegroundFn = func(context.Context) (string, error) { return "", errDriver }
	_, err := runOp(t, "get_foreground_app", d, `{}`)
	require.ErrorIs(t, err, errDriver)

	_, err = runOp(t, "get_foreground_app", newFake(), `{}`)
	wantCode(t, err, broker.CodeUnsupported)
	_, err = runOp(t, "get_foreground_app", d, `{"packageName":"com.x"}`)
	wantCode(t, err, broker.CodeBadInput)
}
