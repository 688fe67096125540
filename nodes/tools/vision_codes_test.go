package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/vision"
)

// The vision tools' failures carry codes a script can switch on: a farm without a worker is
// vision_unavailable (and still vision.ErrNoWorker), a text or image not on screen not_found.
func TestVisionToolsFailureCodes(t *testing.T) {
	shop := func() *sim.Phone {
		p := sim.New("sim-codes")
		t.Cleanup(func() { p.Close() })
		if err := p.LaunchApp(context.Background(), "com.corral.shop"); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Not in the tree, and no worker to read the screen.
	_, err := runOp(t, "tap_ocr", shop(), `{"text":"Checkout"}`)
	wantCode(t, err, broker.CodeNoVision)
	if !errors.Is(err, vision.ErrNoWorker) {
		t.Errorf("a missing worker is not vision.ErrNoWorker: %v", err)
	}
	// In the tree nine times, asked for the 41st.
	_, err = runOp(t, "tap_ocr", shop(), `{"text":"^Item \\d$","regex":true,"index":40}`)
	wantCode(t, err, broker.CodeNotFound)

	_, err = runOp(t, "swipe_to_tap_text", shop(), `{"text":"Nowhere at all","max_retry_times":1}`)
	wantCode(t, err, broker.CodeNoVision)

	p := shop()
	shot, err := p.Screenshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var icon bytes.Buffer
	if err := png.Encode(&icon, shot.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(0, 0, 64, 64))); err != nil {
		t.Fatal(err)
	}
	_, err = runOp(t, "tap_cv", p, `{"imagePath":"`+base64.StdEncoding.EncodeToString(icon.Bytes())+`"}`)
	wantCode(t, err, broker.CodeNoVision)
}
