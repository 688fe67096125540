package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// get_foreground_app answers through the whole farm: what a simulated phone has in front after
// app_launch, and its launcher after home.
func TestGetForegroundAppOnASimFarm(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("httprunner-user")

	res := farmtest.Call(t, c, "app_launch", args("serial", serial, "packageName", "com.corral.notes"))
	require.False(t, res.IsError, farmtest.Text(res))
	var got struct {
		PackageName string `json:"packageName"`
		Message     string `json:"message"`
	}
	res = farmtest.Call(t, c, "get_foreground_app", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))
	farmtest.Structured(t, res, &got)
	assert.Equal(t, "com.corral.notes", got.PackageName)
	assert.Equal(t, "com.corral.notes is in front", got.Message)

	res = farmtest.Call(t, c, "home", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))
	res = farmtest.Call(t, c, "get_foreground_app", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))
	farmtest.Structured(t, res, &got)
	assert.Equal(t, "com.corral.launcher", got.PackageName)
	assert.Contains(t, got.Message, "the home screen")

	res = farmtest.Call(t, c, "get_foreground_app", args("serial", serial, "packageName", "x"))
	assert.True(t, res.IsError)
	assert.Contains(t, farmtest.Text(res), "unknown argument")
}
