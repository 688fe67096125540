//go:build vision

package worker

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig reads the headers of the formats the contract allows
	_ "image/png"
	"log/slog"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"gocv.io/x/gocv"

	"github.com/corral-farm/corral/vision"
)

// Limits of what the engine accepts, beyond vision.MaxImageBytes.
const (
	MaxImageSide   = 20000    // pixels, either side
	MaxImagePixels = 40 << 20 // pixels in all (a 20000×20000 image would need 1.2 GB decoded)
	MaxLanguages   = 4
	MaxMarks       = 1000
	MaxLabelRunes  = 200
)

// DefaultLanguages are the OCR languages of a request that names none.
var DefaultLanguages = []string{"eng", "chi_sim"}

// Options configure an Engine.
type Options struct {
	// Parallel bounds the operations that run at once (each takes a core); 0: runtime.NumCPU().
	Parallel int
	// TessdataDir holds the *.traineddata files; empty: Tesseract's default (or TESSDATA_PREFIX).
	TessdataDir string
	// Log receives the engine's notes; nil: discarded.
	Log *slog.Logger
}

// Engine does the vision work: OCR (Tesseract), template matching, element listing, frame
// differences and annotation (OpenCV). It is safe for concurrent use: at most
// Options.Parallel operations run at once, each OCR on a Tesseract instance of its own from a
// pool.
type Engine struct {
	opts  Options
	log   *slog.Logger
	slots chan struct{} // one per operation that may run

	mu     sync.Mutex
	idle   []*tess // Tesseract instances not in use, the most recently used last
	closed bool
	langs  map[string]bool // the languages whose traineddata is installed
}

// New starts an engine. It fails when Tesseract or its English traineddata is missing.
func New(opts Options) (*Engine, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	sequentialOpenCV() // each call has a core of its own (threads.go)
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t, err := newTess(opts.TessdataDir, "eng")
	if err != nil {
		return nil, fmt.Errorf("vision engine: %w", err)
	}
	e := &Engine{opts: opts, log: log, slots: make(chan struct{}, opts.Parallel), langs: map[string]bool{}}
	for _, l := range t.languages() {
		e.langs[l] = true
	}
	t.close()
	for _, l := range DefaultLanguages {
		if !e.langs[l] {
			log.Warn("OCR language not installed: requests that name none use the others", "language", l)
		}
	}
	// One instance for the default languages is ready before the first call.
	if langs, err := e.languages(nil); err == nil {
		if t, err := e.tessFor(langs); err == nil {
			e.release(t)
		}
	}
	return e, nil
}

// Languages lists the OCR languages installed.
func (e *Engine) Languages() []string {
	out := make([]string, 0, len(e.langs))
	for l := range e.langs {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// Close frees the Tesseract instances. Calls still running finish first; later ones fail.
func (e *Engine) Close() {
	for range cap(e.slots) {
		e.slots <- struct{}{}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for _, t := range e.idle {
		t.close()
	}
	e.idle = nil
	for range cap(e.slots) {
		<-e.slots
	}
}

// acquire takes a slot for one operation, waiting while Parallel run.
func (e *Engine) acquire(ctx context.Context) (func(), error) {
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		<-e.slots
		return nil, &vision.Error{Code: vision.CodeFailed, Message: "the vision engine is closed"}
	}
	return func() { <-e.slots }, nil
}

// tessFor takes a Tesseract instance for langs from the pool, or starts one.
func (e *Engine) tessFor(langs string) (*tess, error) {
	e.mu.Lock()
	for i := len(e.idle) - 1; i >= 0; i-- {
		if t := e.idle[i]; t.langs == langs {
			e.idle = slices.Delete(e.idle, i, i+1)
			e.mu.Unlock()
			return t, nil
		}
	}
	e.mu.Unlock()
	t, err := newTess(e.opts.TessdataDir, langs)
	if err != nil {
		return nil, &vision.Error{Code: vision.CodeFailed, Message: err.Error()}
	}
	return t, nil
}

// release puts t back in the pool, which keeps at most Parallel instances (the least recently
// used go first).
func (e *Engine) release(t *tess) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		t.close()
		return
	}
	e.idle = append(e.idle, t)
	for len(e.idle) > e.opts.Parallel {
		e.idle[0].close()
		e.idle = e.idle[1:]
	}
}

var langName = regexp.MustCompile(`^[A-Za-z0-9_]{1,32}$`)

// languages checks a request's languages and returns them as Tesseract names them ("eng+chi_sim").
func (e *Engine) languages(req []string) (string, error) {
	if len(req) == 0 {
		var def []string
		for _, l := range DefaultLanguages {
			if e.langs[l] {
				def = append(def, l)
			}
		}
		if len(def) == 0 {
			return "", &vision.Error{Code: vision.CodeFailed, Message: "no default OCR language is installed on this worker"}
		}
		return strings.Join(def, "+"), nil
	}
	if len(req) > MaxLanguages {
		return "", badInput("at most %d languages per call, not %d", MaxLanguages, len(req))
	}
	var out []string
	for _, l := range req {
		if !langName.MatchString(l) || !e.langs[l] {
			return "", badInput("unknown OCR language %q: this worker has %s", truncate(l, 40), strings.Join(e.Languages(), ", "))
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "+"), nil
}

func badInput(format string, args ...any) error {
	return &vision.Error{Code: vision.CodeBadInput, Message: fmt.Sprintf(format, args...)}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// checkVersion refuses a request of a wire version this worker does not speak (0: the current).
func checkVersion(v int) error {
	if v != 0 && v != vision.WireVersion {
		return badInput("wire version %d is not spoken here (this worker speaks %d)", v, vision.WireVersion)
	}
	return nil
}

// decode checks that data is a PNG or JPEG within the limits and decodes it (flags: gocv's
// IMReadColor or IMReadGrayScale). what names the image in messages ("image", "template").
// OpenCV is only called on data whose header Go's decoders accepted and whose size is bounded.
func decode(data []byte, what string, flags gocv.IMReadFlag) (gocv.Mat, error) {
	if len(data) == 0 {
		return gocv.Mat{}, badInput("the %s is empty: send a PNG or JPEG", what)
	}
	if len(data) > vision.MaxImageBytes {
		return gocv.Mat{}, badInput("the %s is %d bytes, over the %d byte limit: send a smaller or JPEG image", what, len(data), vision.MaxImageBytes)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return gocv.Mat{}, badInput("the %s is not a PNG or JPEG image (%v)", what, err)
	}
	if err := checkSize(what, cfg.Width, cfg.Height); err != nil {
		return gocv.Mat{}, err
	}
	m, err := gocv.IMDecode(data, flags)
	if err != nil || m.Empty() {
		if err == nil {
			m.Close()
		}
		return gocv.Mat{}, badInput("the %s is a damaged %s image: it does not decode", what, format)
	}
	if m.Cols() != cfg.Width || m.Rows() != cfg.Height {
		m.Close()
		return gocv.Mat{}, badInput("the %s is a damaged %s image: its header says %d×%d", what, format, cfg.Width, cfg.Height)
	}
	return m, nil
}

func checkSize(what string, w, h int) error {
	switch {
	case w <= 0 || h <= 0:
		return badInput("the %s is %d×%d: it has no pixels", what, w, h)
	case w > MaxImageSide || h > MaxImageSide:
		return badInput("the %s is %d×%d, over the %d pixel limit of a side: scale it down", what, w, h, MaxImageSide)
	case w*h > MaxImagePixels:
		return badInput("the %s is %d×%d, over the %d megapixel limit: scale it down", what, w, h, MaxImagePixels>>20)
	}
	return nil
}

// toBox converts r to the contract's Box.
func toBox(r image.Rectangle) vision.Box {
	return vision.Box{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy()}
}
