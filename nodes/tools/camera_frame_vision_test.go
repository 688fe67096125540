//go:build vision

package tools

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// peek on an arm rig lists what the vision worker sees in the camera's frame, and says the
// image is that frame, not "the screenshot"; a phone's peek still says the screenshot.
func TestWorkerArmPeekSaysTheCameraFrame(t *testing.T) {
	v := visionWorker(t)
	arm := twinRig(t, 9)
	out, err := runWith(t, OpsConfig{Vision: v}, "peek", arm, `{}`)
	require.NoError(t, err)
	r := out.Data.(PeekResult)
	require.Equal(t, SourceVision, r.Source, r.Message)
	if !strings.Contains(r.Message, "the image is the overhead camera's frame") {
		t.Errorf("an arm's peek says %q", r.Message)
	}

	p := simIn(t, "com.corral.shop")
	p.HideTree(true)
	out, err = runWith(t, OpsConfig{Vision: v}, "peek", p, `{}`)
	require.NoError(t, err)
	if msg := out.Data.(PeekResult).Message; !strings.Contains(msg, "the image is the screenshot") {
		t.Errorf("a phone's peek says %q", msg)
	}
}
