//go:build !vision

package main

import (
	"context"
	"errors"
	"flag"
)

// inProcessVision is nil: this corral is built without vision, and `corral up` says how to add it.
var inProcessVision visionStarter

// errNoVision answers `corral vision` in a corral built without it.
var errNoVision = errors.New("this corral was built without vision (OCR and template matching need cgo, OpenCV and Tesseract): " +
	"build it with `make build-vision` (CGO_ENABLED=1 go build -tags vision ./cmd/corral; the Debian packages it needs: make setup), " +
	"or run the image of deploy/Dockerfile.vision")

// runVision says so, also to one who asked for its help (then as the help, not an error).
func runVision(_ context.Context, args []string) error {
	if subcommandHelp(args, "usage: corral vision [flags]: a vision worker. "+errNoVision.Error()) {
		return flag.ErrHelp
	}
	return errNoVision
}
