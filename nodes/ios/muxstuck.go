package ios

import (
	"context"
	"fmt"
	"time"
)

// muxAnswerWithin bounds the device list that tells a stuck usbmuxd from a dead WebDriverAgent:
// a usbmuxd that works answers it in milliseconds.
const muxAnswerWithin = time.Second

// stuck asks usbmuxd for its device list and says, as a MuxDownError, if it does not answer in
// muxAnswerWithin or does not take the connection: then every call through it times out, and
// that is usbmuxd's doing, not the device's. nil when it answers, or when ctx ended first.
func (m Mux) stuck(ctx context.Context) *MuxDownError {
	lctx, cancel := context.WithTimeout(ctx, muxAnswerWithin)
	defer cancel()
	_, err := m.List(lctx)
	if down := muxDown(err); down != nil {
		return down
	}
	if err == nil || ctx.Err() != nil || lctx.Err() == nil {
		return nil
	}
	return &MuxDownError{Addr: m.String(), Stuck: true,
		Err: fmt.Errorf("gave no device list within %s", muxAnswerWithin)}
}
