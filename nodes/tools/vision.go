package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/image/draw"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/vision"
)

// Vision is what the tools that read screens (tap_ocr, tap_cv, swipe_to_tap_*, peek without a
// UI tree) ask of the farm's vision workers: *vision.Client, through NATS.
type Vision interface {
	Ping(ctx context.Context) error
	OCR(ctx context.Context, req vision.OCRRequest) (vision.OCRResult, error)
	Match(ctx context.Context, req vision.MatchRequest) (vision.MatchResult, error)
	Elements(ctx context.Context, req vision.ElementsRequest) (vision.ElementsResult, error)
}

// noVision is the Vision of a node configured without one: no worker answers.
type noVision struct{}

func (noVision) Ping(context.Context) error { return vision.ErrNoWorker }

func (noVision) OCR(context.Context, vision.OCRRequest) (vision.OCRResult, error) {
	return vision.OCRResult{}, vision.ErrNoWorker
}

func (noVision) Match(context.Context, vision.MatchRequest) (vision.MatchResult, error) {
	return vision.MatchResult{}, vision.ErrNoWorker
}

func (noVision) Elements(context.Context, vision.ElementsRequest) (vision.ElementsResult, error) {
	return vision.ElementsResult{}, vision.ErrNoWorker
}

// vision returns the node's vision workers (none answer on a node configured without them).
func (t *Task) vision() Vision {
	if v := t.env().Config.Vision; v != nil {
		return v
	}
	return noVision{}
}

// visionLimits are the sizes a screen image is encoded within, tried in turn: the contract's
// bound, then sizes whose request (base64 in JSON: 4/3 of the image) fits NATS's default 1 MiB
// payload, for a server that was not given a larger max_payload.
var visionLimits = []int{vision.MaxImageBytes, 700_000, 350_000}

// visionImage is a screen encoded for a vision worker: PNG or JPEG bytes, and the scale of the
// encoded image to the screenshot (1, or less when it had to shrink to fit).
type visionImage struct {
	data  []byte
	scale float64
}

// toScreen maps a box of the encoded image to the screenshot's pixels (from its top-left corner:
// the screen's).
func (v visionImage) toScreen(b vision.Box) image.Rectangle {
	r := b.Rect()
	if v.scale != 1 {
		r = image.Rect(int(float64(r.Min.X)/v.scale), int(float64(r.Min.Y)/v.scale),
			int(float64(r.Max.X)/v.scale+0.5), int(float64(r.Max.Y)/v.scale+0.5))
	}
	return r
}

// encodeForVision encodes img within limit bytes: PNG when it fits (lossless text), else JPEG,
// lowering the quality, then the size.
func encodeForVision(img image.Image, limit int) (visionImage, error) {
	b := img.Bounds()
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return visionImage{}, fmt.Errorf("encode the screenshot: %w", err)
	}
	if buf.Len() <= limit {
		return visionImage{data: buf.Bytes(), scale: 1}, nil
	}
	scaled, scale := img, 1.0
	for range 5 {
		for _, q := range []int{92, 80} {
			buf.Reset()
			if err := jpeg.Encode(&buf, scaled, &jpeg.Options{Quality: q}); err != nil {
				return visionImage{}, fmt.Errorf("encode the screenshot: %w", err)
			}
			if buf.Len() <= limit {
				return visionImage{data: buf.Bytes(), scale: scale}, nil
			}
		}
		scale *= 0.75
		w, h := max(1, int(float64(b.Dx())*scale)), max(1, int(float64(b.Dy())*scale))
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		scaled = dst
	}
	return visionImage{}, fmt.Errorf("the %dx%d screenshot does not fit in %d bytes for the vision worker", b.Dx(), b.Dy(), limit)
}

// visionFresh is how long a worker's answer vouches that workers listen.
const visionFresh = 10 * time.Second

// visionReady says whether a vision worker listens (nil), before a tool pays for encoding a
// screenshot (a tenth of a second, seconds under the race detector): vision.ErrNoWorker at
// once when none does. A worker that answered in the last visionFresh vouches for itself;
// otherwise the workers' micro PING asks.
func visionReady(ctx context.Context, t *Task) error {
	env := t.env()
	if seen := env.visionSeen.Load(); seen != 0 && time.Since(time.Unix(0, seen)) < visionFresh {
		return nil
	}
	if err := t.vision().Ping(ctx); err != nil {
		return err
	}
	env.visionSeen.Store(time.Now().UnixNano())
	return nil
}

// askVision asks the vision workers about img, when one listens (visionReady): it encodes img
// within each of visionLimits (less reserve bytes, another image's) in turn and calls ask with
// it, until a request fits the NATS server's payload limit.
func askVision[R any](ctx context.Context, t *Task, img image.Image, reserve int, ask func(visionImage) (R, error)) (R, visionImage, error) {
	var zero R
	if err := visionReady(ctx, t); err != nil {
		return zero, visionImage{}, visionErr(err)
	}
	var last error
	for _, limit := range visionLimits {
		if limit-reserve <= 0 {
			break
		}
		vi, err := encodeForVision(img, limit-reserve)
		if err != nil {
			return zero, vi, err
		}
		r, err := ask(vi)
		if !errors.Is(err, nats.ErrMaxPayload) {
			var ve *vision.Error
			if err == nil || errors.As(err, &ve) {
				t.env().visionSeen.Store(time.Now().UnixNano())
			}
			return r, vi, visionErr(err)
		}
		last = err
	}
	return zero, visionImage{}, fmt.Errorf("the vision request is larger than the NATS server takes (%w); "+
		"give the farm's NATS server max_payload: 24MB (docs/operations.md)", last)
}

// visionErr says what a vision failure means to the caller: a refusal of the input is
// bad_input; no worker is vision_unavailable and keeps vision.ErrNoWorker (errors.Is) and
// its words.
func visionErr(err error) error {
	var ve *vision.Error
	switch {
	case err == nil:
		return nil
	case noWorker(err):
		return &OpError{Code: broker.CodeNoVision, Msg: "vision is unavailable", Err: err}
	case errors.As(err, &ve) && ve.Code == vision.CodeBadInput:
		return &OpError{Code: broker.CodeBadInput, Msg: "the vision worker refused the image", Err: err}
	}
	return err
}

// noWorker says whether err is the farm's having no vision worker.
func noWorker(err error) bool { return errors.Is(err, vision.ErrNoWorker) }
