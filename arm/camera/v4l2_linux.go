//go:build linux

package camera

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/blackjack/webcam"
)

// V4L2Options tune OpenV4L2.
type V4L2Options struct {
	// Width and Height are the frame size wanted (0×0: the largest the camera offers); the
	// nearest offered size is taken.
	Width, Height int
	// MaxAge lets Frame return the latest frame at once when it is younger than MaxAge.
	MaxAge time.Duration
}

// V4L2 reads a Video4Linux2 camera (a USB webcam: /dev/video0) with plain ioctls, no cgo.
type V4L2 struct {
	path   string
	format Format
	cam    *webcam.Webcam
	frames *latest[[]byte]
	tables []byte
	maxAge time.Duration
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

var _ Source = (*V4L2)(nil)

// OpenV4L2 opens the camera at path and starts capturing: MJPEG when the camera offers it,
// else YUYV, at the size nearest to the one asked.
func OpenV4L2(path string, o V4L2Options) (*V4L2, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("camera: no such device %s: is the camera plugged in? ls /dev/video*", path)
	}
	cam, err := webcam.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("camera: %s: %w: add the user to the video group (sudo usermod -aG video $USER)", path, err)
		}
		return nil, fmt.Errorf("camera: %s is not a camera that can stream: %w (v4l2-ctl --list-devices lists them)", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = cam.Close()
		}
	}()
	formats := map[uint32]string{}
	for f, name := range cam.GetSupportedFormats() {
		formats[uint32(f)] = name
	}
	f, err := ChooseFormat(formats, func(fc uint32) []SizeRange {
		var out []SizeRange
		for _, s := range cam.GetSupportedFrameSizes(webcam.PixelFormat(fc)) {
			out = append(out, SizeRange{s.MinWidth, s.MaxWidth, s.StepWidth, s.MinHeight, s.MaxHeight, s.StepHeight})
		}
		return out
	}, o.Width, o.Height)
	if err != nil {
		return nil, fmt.Errorf("camera %s: %w", path, err)
	}
	got, w, h, err := cam.SetImageFormat(webcam.PixelFormat(f.FourCC), uint32(f.W), uint32(f.H))
	if err != nil {
		return nil, fmt.Errorf("camera %s: setting %s %d×%d: %w", path, fourcc(f.FourCC), f.W, f.H, err)
	}
	f = Format{FourCC: uint32(got), W: int(w), H: int(h)}
	if err := cam.StartStreaming(); err != nil {
		return nil, fmt.Errorf("camera %s: %w: is another program using the camera?", path, err)
	}
	v := &V4L2{path: path, format: f, cam: cam, frames: newLatest[[]byte](), maxAge: o.MaxAge,
		tables: huffmanTables(), stop: make(chan struct{}), done: make(chan struct{})}
	ok = true
	go v.run()
	return v, nil
}

// Format is what the camera captures.
func (v *V4L2) Format() Format { return v.format }

// run captures frames until Close; only it touches the device.
func (v *V4L2) run() {
	defer close(v.done)
	quiet := time.Now()
	for {
		select {
		case <-v.stop:
			return
		default:
		}
		err := v.cam.WaitForFrame(200)
		var timeout *webcam.Timeout
		switch {
		case errors.As(err, &timeout):
			if time.Since(quiet) > 5*time.Second {
				v.frames.fail(fmt.Errorf("%w: camera %s sent no frame for 5 s: is it still plugged in?", ErrDown, v.path))
			}
			continue
		case err != nil:
			v.frames.fail(fmt.Errorf("%w: camera %s: %w: is it still plugged in? (reopen it once it is back)", ErrDown, v.path, err))
			return
		}
		buf, index, err := v.cam.GetFrame()
		if err != nil || len(buf) == 0 {
			continue // not ready after all (EAGAIN)
		}
		frame := append([]byte(nil), buf...)
		_ = v.cam.ReleaseFrame(index)
		quiet = time.Now()
		v.frames.put(frame, quiet)
	}
}

// Frame is the first frame captured after the call (or the latest, if younger than
// MaxAge), decoded.
func (v *V4L2) Frame(ctx context.Context) (image.Image, error) {
	data, err := v.frames.next(ctx, v.maxAge)
	if err != nil {
		if errors.Is(err, ErrClosed) || errors.Is(err, ErrDown) {
			return nil, err
		}
		return nil, fmt.Errorf("camera %s: %w", v.path, err)
	}
	return v.decode(data)
}

func (v *V4L2) decode(data []byte) (image.Image, error) {
	var img image.Image
	var err error
	switch v.format.FourCC {
	case FourCCMJPEG:
		img, err = decodeJPEG(withHuffman(data, v.tables), MaxFramePixels)
	case FourCCYUYV:
		img, err = YUYVImage(data, v.format.W, v.format.H, 0)
	default:
		err = fmt.Errorf("%w: format %s", ErrBadFrame, fourcc(v.format.FourCC))
	}
	if err != nil {
		return nil, fmt.Errorf("camera %s: %w", v.path, err)
	}
	return img, nil
}

// Close stops capturing and lets the device go.
func (v *V4L2) Close() error {
	var err error
	v.once.Do(func() {
		close(v.stop)
		<-v.done
		v.frames.close()
		err = v.cam.Close()
	})
	return err
}

// Down is why the camera sends no frames now, nil while it streams (Downer).
func (v *V4L2) Down() error { return v.frames.downNow() }
