//go:build !linux

package camera

import (
	"errors"
	"time"
)

// V4L2Options tune OpenV4L2.
type V4L2Options struct {
	Width, Height int
	MaxAge        time.Duration
}

// V4L2 is a V4L2 camera; V4L2 is Linux only.
type V4L2 struct{ Source }

// OpenV4L2 fails: V4L2 cameras are Linux only; elsewhere serve the camera as MJPEG.
func OpenV4L2(path string, o V4L2Options) (*V4L2, error) {
	return nil, errors.New("camera: V4L2 cameras are Linux only: on this system, serve the camera as an MJPEG stream and use its URL")
}
