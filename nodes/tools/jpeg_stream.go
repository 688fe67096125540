package tools

import (
	"context"
	"errors"
	"fmt"
	"image"
	"runtime"
	"sync"
)

// FrameStreamer is a driver that hands its screen's raw pixels over as they arrive (Android's
// framebuffer: 10 MB through adb), so that the JPEG is encoded strip by strip meanwhile
// rather than after. StreamScreenshot returns the screen as Screenshot does; while it reads
// an RGBA frame it calls rows(frame, n) each time more rows are in, one call at a time and
// none after it returns: frame's rows 0 to n-1 are final then, and may be read from any
// goroutine. A returned image other than that frame voids what rows was told.
type FrameStreamer interface {
	StreamScreenshot(ctx context.Context, rows func(frame *image.RGBA, n int)) (image.Image, error)
}

// streamMCURows is the height of a streamed strip in MCU rows: 128 pixel rows, so that
// encoding starts soon after the first rows arrive and the cores share the work evenly.
const streamMCURows = 8

// stripStream encodes a frame as one JPEG while it arrives (FrameStreamer's rows), scaled
// down to maxWidth if it is wider: each strip of rows on its own goroutine once the rows
// under it are in, the strips joined as encodeStrips joins them.
type stripStream struct {
	ctx               context.Context // once done, the strips not yet encoded are not
	maxWidth, quality int

	frame  *image.RGBA // as it arrives; nil until rows is first called
	out    *image.RGBA // what is encoded: frame, or shrink's output
	shrink *shrinker   // nil when the frame is not scaled
	strip  int         // rows per strip: a whole number of MCU rows; 0: not streamed
	next   int         // rows of out handed to strips so far
	strips [][]byte
	errs   []error
	wg     sync.WaitGroup
	slots  chan struct{} // one per core: strips encoded at once
	held   bool          // one slot is the transfer's until the frame is in
}

// rows is FrameStreamer's rows: it starts the strips whose rows are all in. It runs on the
// driver's goroutine, which must not wait.
func (s *stripStream) rows(frame *image.RGBA, n int) {
	if s.frame == nil {
		s.start(frame)
	}
	if frame != s.frame || s.strip == 0 {
		return
	}
	h, ready := s.out.Rect.Dy(), n
	if s.shrink != nil {
		ready = s.shrink.ready(n)
	}
	for s.next < h && (ready-s.next >= s.strip || ready == h) {
		i, y0, y1 := s.next/s.strip, s.next, min(s.next+s.strip, h)
		s.next = y1
		s.wg.Go(func() { s.encode(i, y0, y1) })
	}
	if n == frame.Rect.Dy() {
		s.release()
	}
}

func (s *stripStream) start(frame *image.RGBA) {
	s.frame, s.out = frame, frame
	if b := frame.Rect; s.maxWidth > 0 && b.Dx() > s.maxWidth {
		s.shrink = newShrinker(frame, s.maxWidth, fitHeight(b, s.maxWidth))
		s.out = s.shrink.dst
	}
	mcus := (s.out.Rect.Dx() + mcuSide - 1) / mcuSide
	s.strip = mcuSide * min(streamMCURows, 0xffff/mcus) // the restart interval has 16 bits
	if s.strip == 0 {
		return
	}
	n := (s.out.Rect.Dy() + s.strip - 1) / s.strip
	s.strips, s.errs = make([][]byte, n), make([]error, n)
	s.slots = make(chan struct{}, runtime.GOMAXPROCS(0))
	if cap(s.slots) > 1 {
		// The transfer (the adb server, the driver's reads) keeps a core: strips that took
		// it would slow the frame down more than they gain.
		s.slots <- struct{}{}
		s.held = true
	}
}

// release gives the transfer's core to the strips.
func (s *stripStream) release() {
	if s.held {
		<-s.slots
		s.held = false
	}
}

// encode scales (if need be) and encodes strip i, rows y0 to y1-1 of out.
func (s *stripStream) encode(i, y0, y1 int) {
	s.slots <- struct{}{}
	defer func() { <-s.slots }()
	if s.errs[i] = workEnded(s.ctx); s.errs[i] != nil {
		return
	}
	if s.shrink != nil {
		s.shrink.rows(y0, y1)
	}
	o := s.out.Rect.Min
	s.strips[i], s.errs[i] = encodeOne(s.ctx, s.out.SubImage(image.Rect(o.X, o.Y+y0, s.out.Rect.Max.X, o.Y+y1)), s.quality)
}

// jpeg waits for the strips and returns them as one JPEG of out; ok is false when they are
// not img's, the image StreamScreenshot returned (nil after an error).
func (s *stripStream) jpeg(img image.Image) (data []byte, ok bool, err error) {
	s.release() // the frame never came whole
	s.wg.Wait()
	if s.frame == nil || s.strip == 0 || img != image.Image(s.frame) || s.next < s.out.Rect.Dy() {
		return nil, false, nil
	}
	if err := workEnded(s.ctx); err != nil { // once, not once a strip
		return nil, false, fmt.Errorf("encode JPEG: %w", err)
	}
	if err := errors.Join(s.errs...); err != nil {
		return nil, false, err
	}
	if len(s.strips) == 1 {
		return s.strips[0], true, nil
	}
	interval := s.strip / mcuSide * ((s.out.Rect.Dx() + mcuSide - 1) / mcuSide)
	data, err = joinStrips(s.strips, s.out.Rect.Dy(), interval)
	return data, err == nil, err
}
