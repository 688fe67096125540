//go:build !vision

package main

import (
	"context"
	"errors"
)

// inProcessVision is nil: this corral is built without vision, and `corral up` says how to add it.
var inProcessVision visionStarter

// errNoVision answers `corral vision` in a corral built without it.
var errNoVision = errors.New("this corral was built without vision (OCR and template matching need cgo, OpenCV and Tesseract): " +
	"build it with `make build-vision` (CGO_ENABLED=1 go build -tags vision ./cmd/corral; the Debian packages it needs: make setup), " +
	"or run the image of deploy/Dockerfile.vision")

func runVision(context.Context, []string) error { return errNoVision }
