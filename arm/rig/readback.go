package rig

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// HTTPReadback is a Readback served over HTTP as server-sent events (arm/twin's
// ReadbackHandler): the page shows while the stream is open; its first event is the screen's
// size, each later one a touch.
type HTTPReadback struct {
	URL    string
	Client *http.Client // default http.DefaultClient
}

// maxEvent bounds one event's line: a size or a point is a few dozen bytes.
const maxEvent = 4096

// ShowCalibration opens the stream and reads its first event, the screen's size.
func (h HTTPReadback) ShowCalibration(ctx context.Context) (<-chan geom.Point, device.Size, func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL, nil)
	if err != nil {
		cancel()
		return nil, device.Size{}, nil, fmt.Errorf("readback %s: %w", h.URL, err)
	}
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		return nil, device.Size{}, nil, fmt.Errorf("readback %s: %w (is the calibration page's server running?)", h.URL, err)
	}
	fail := func(err error) (<-chan geom.Point, device.Size, func(), error) {
		cancel()
		_ = resp.Body.Close()
		return nil, device.Size{}, nil, fmt.Errorf("readback %s: %w", h.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("%s", resp.Status))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 256), maxEvent)
	var size device.Size
	if err := nextEvent(sc, &size); err != nil {
		return fail(fmt.Errorf("the screen's size: %w", err))
	}
	if size.Width <= 0 || size.Height <= 0 || size.Width > 20000 || size.Height > 20000 {
		return fail(fmt.Errorf("the screen's size %d×%d is not a phone's", size.Width, size.Height))
	}
	touches := make(chan geom.Point, 16)
	go func() {
		defer close(touches)
		for {
			var p geom.Point
			if err := nextEvent(sc, &p); err != nil {
				return
			}
			select {
			case touches <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	return touches, size, func() { cancel(); _ = resp.Body.Close() }, nil
}

// nextEvent decodes the data of the next event into v.
func nextEvent(sc *bufio.Scanner, v any) error {
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		return json.Unmarshal([]byte(data), v)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("the stream ended")
}
