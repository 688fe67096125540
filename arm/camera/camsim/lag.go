package camsim

import (
	"fmt"
	"image"
)

// A real camera's frames lag: a USB camera queues a few buffers, an IP camera's encoder and
// the network hold a frame or two, so the first frame that arrives after something changed
// on the screen may show it as it was before. SetLag makes the simulated camera do so.

// maxLag bounds SetLag: a frame of a 1080×1920 camera is 8 MB.
const maxLag = 8

// SetLag makes the camera's frames reach its clients n frames late: each frame renders the
// screen as it is now and gives the one rendered n frames before (the oldest there is, at
// first). 0, the default, gives the frame just rendered.
func (k *Camera) SetLag(n int) error {
	if n < 0 || n > maxLag {
		return fmt.Errorf("camsim: a lag of %d frames: give 0 to %d", n, maxLag)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lag = n
	if len(k.queue) > n {
		k.queue = k.queue[len(k.queue)-n:]
	}
	return nil
}

// delay queues frame and gives the frame to hand out now; k.mu is held.
func (k *Camera) delay(frame *image.RGBA) *image.RGBA {
	if k.lag == 0 {
		return frame
	}
	k.queue = append(k.queue, frame)
	out := k.queue[0]
	if len(k.queue) > k.lag {
		k.queue = k.queue[1:]
	}
	return out
}
