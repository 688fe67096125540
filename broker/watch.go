package broker

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Watch asks the device's node to start, keep up or stop one watcher's watch of its screen
// (frames.go). A gateway repeats it well within WatchTTL while anyone looks.
func (c *Client) Watch(ctx context.Context, req WatchRequest) (WatchAnswer, error) {
	req.V = WireVersion
	var ans WatchAnswer
	return ans, c.toDevice(ctx, req.Serial, EndpointWatch, req, &ans)
}

// SubscribeFrames hands fn every frame of serial published by the node the registry names as
// its owner now, the node it returns; fn runs on the subscription's goroutine. A frame that
// does not parse, or names another device than its subject, is dropped. stop ends it.
func (c *Client) SubscribeFrames(serial string, fn func(Frame)) (node string, stop func(), err error) {
	dev, ok := c.Device(serial)
	if !ok {
		return "", nil, fmt.Errorf("no device %q in the registry; the console lists the devices there are", serial)
	}
	subject := FramesSubject(dev.Node, serial)
	sub, err := c.nc.Subscribe(subject, c.guard.Msg(func(m *nats.Msg) {
		f, err := ParseFrame(m)
		if err != nil || f.Serial != serial {
			c.log.Debug("frame dropped", "subject", m.Subject, "err", err)
			return
		}
		fn(f)
	}))
	if err != nil {
		return "", nil, fmt.Errorf("subscribe to %s: %w (may this gateway's NATS user subscribe to %s?)", subject, err, Frames)
	}
	// A slow console drops frames, never the connection: a frame is stale in a second.
	_ = sub.SetPendingLimits(64, 32<<20)
	return dev.Node, func() { _ = sub.Unsubscribe() }, nil
}
