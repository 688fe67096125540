package camera

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"mime"
	"strconv"
	"strings"
)

const (
	// DefaultMaxPart caps one part (one JPEG) of an MJPEG stream.
	DefaultMaxPart = 16 << 20
	// MaxFramePixels caps the size of a decoded frame (an 8K frame is 33 M pixels).
	MaxFramePixels = 40_000_000
	// maxHeader caps the headers of one part, maxJunk what may come before a boundary.
	maxHeader = 16 << 10
	maxJunk   = 64 << 10
)

// boundaryOf is the boundary of a multipart stream's Content-Type.
func boundaryOf(contentType string) (string, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", fmt.Errorf("%w: Content-Type %q: %w: is this an MJPEG stream?", ErrBadFrame, contentType, err)
	}
	if !strings.HasPrefix(mt, "multipart/") {
		return "", fmt.Errorf("%w: Content-Type is %q, not multipart/x-mixed-replace: is the URL the camera's MJPEG stream (often /video, /mjpeg or /stream) rather than a page or a snapshot?", ErrBadFrame, mt)
	}
	b := params["boundary"]
	if b == "" || len(b) > 200 {
		return "", fmt.Errorf("%w: Content-Type %q has no usable boundary", ErrBadFrame, contentType)
	}
	return b, nil
}

// partReader reads the parts of a multipart/x-mixed-replace stream, as cameras write it:
// with or without Content-Length, with or without a CR before LF, with the boundary given
// with or without its leading "--". No part is longer than max bytes.
type partReader struct {
	br      *bufio.Reader
	delims  [][]byte
	max     int
	started bool
	done    bool
}

func newPartReader(r io.Reader, boundary string, max int) *partReader {
	p := &partReader{br: bufio.NewReaderSize(r, 64<<10), max: max, delims: [][]byte{[]byte("--" + boundary)}}
	if strings.HasPrefix(boundary, "--") {
		p.delims = append(p.delims, []byte(boundary))
	}
	return p
}

// delimiter says whether line is a boundary line, and whether it closes the stream.
func (p *partReader) delimiter(line []byte) (is, last bool) {
	t := bytes.TrimRight(line, " \t\r\n")
	for _, d := range p.delims {
		if rest, ok := bytes.CutPrefix(t, d); ok {
			switch string(rest) {
			case "":
				return true, false
			case "--":
				return true, true
			}
		}
	}
	return false, false
}

// line reads one line, or up to the buffer's size of a longer one (full is then false).
func (p *partReader) line() (b []byte, full bool, err error) {
	b, err = p.br.ReadSlice('\n')
	switch err {
	case nil:
		return b, true, nil
	case bufio.ErrBufferFull:
		return b, false, nil
	case io.EOF:
		if len(b) > 0 {
			return b, true, nil
		}
	}
	return nil, false, err
}

// skipToBoundary reads up to the next boundary line, at most maxJunk bytes.
func (p *partReader) skipToBoundary(what string) error {
	n, atStart := 0, true
	for {
		b, full, err := p.line()
		if err != nil {
			return p.eof(err, "looking for the next boundary")
		}
		if atStart {
			if is, last := p.delimiter(b); is {
				p.done = last
				return nil
			}
		}
		atStart = full
		if n += len(b); n > maxJunk {
			return fmt.Errorf("%w: no boundary %q in %d bytes %s: is this an MJPEG stream?", ErrBadFrame, p.delims[0], maxJunk, what)
		}
	}
}

func (p *partReader) eof(err error, doing string) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// next is the next part's headers (lower-case names) and body; io.EOF at the end of the
// stream.
func (p *partReader) next() (map[string]string, []byte, error) {
	if !p.started {
		if err := p.skipToBoundary("at the start of the stream"); err != nil {
			if err == io.ErrUnexpectedEOF {
				return nil, nil, io.EOF
			}
			return nil, nil, err
		}
		p.started = true
	}
	if p.done {
		return nil, nil, io.EOF
	}
	header := map[string]string{}
	for n := 0; ; {
		b, full, err := p.line()
		if err != nil {
			return nil, nil, p.eof(err, "reading a part's headers")
		}
		if n += len(b); n > maxHeader || !full {
			return nil, nil, fmt.Errorf("%w: a part's headers are over %d bytes", ErrBadFrame, maxHeader)
		}
		l := strings.TrimRight(string(b), "\r\n")
		if l == "" {
			break
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, nil, fmt.Errorf("%w: a part's header line %.60q has no colon", ErrBadFrame, l)
		}
		header[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if cl, ok := header["content-length"]; ok {
		n, err := strconv.Atoi(cl)
		if err != nil || n < 0 {
			return nil, nil, fmt.Errorf("%w: a part's Content-Length is %.30q", ErrBadFrame, cl)
		}
		if n > p.max {
			return nil, nil, fmt.Errorf("%w: a part of %d bytes is over the %d-byte cap: lower the camera's resolution or quality", ErrBadFrame, n, p.max)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(p.br, body); err != nil {
			return nil, nil, p.eof(err, "reading a part")
		}
		if err := p.skipToBoundary("after a part"); err != nil && err != io.ErrUnexpectedEOF {
			return nil, nil, err
		} else if err != nil {
			p.done = true // the last part, without a closing boundary
		}
		return header, body, nil
	}
	// No length: the body runs to the next boundary line; the line break before the
	// boundary belongs to the boundary.
	var body []byte
	atStart := true
	for {
		b, full, err := p.line()
		if err == io.EOF {
			return nil, nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, nil, p.eof(err, "reading a part")
		}
		if atStart {
			if is, last := p.delimiter(b); is {
				p.done = last
				body = bytes.TrimSuffix(body, []byte("\n"))
				body = bytes.TrimSuffix(body, []byte("\r"))
				return header, body, nil
			}
		}
		atStart = full
		if len(body)+len(b) > p.max+2 {
			return nil, nil, fmt.Errorf("%w: a part is over the %d-byte cap: lower the camera's resolution or quality", ErrBadFrame, p.max)
		}
		body = append(body, b...)
	}
}

// decodeJPEG decodes one frame, refusing one over MaxFramePixels before allocating it.
func decodeJPEG(data []byte, maxPixels int) (image.Image, error) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: not a JPEG (%d bytes): %w", ErrBadFrame, len(data), err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPixels {
		return nil, fmt.Errorf("%w: a %d×%d JPEG is over the %d-pixel cap", ErrBadFrame, cfg.Width, cfg.Height, maxPixels)
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: a broken JPEG (%d bytes): %w", ErrBadFrame, len(data), err)
	}
	return img, nil
}
