//go:build vision

// Package worker is the vision engine of `corral vision`: OCR with Tesseract (through its C
// API), and template matching, element listing, frame differences and annotation with OpenCV
// (gocv). It is the only cgo in Corral, so every file here builds only with the `vision` tag;
// it needs Debian's libopencv-dev, libtesseract-dev, libleptonica-dev and the
// tesseract-ocr-eng and tesseract-ocr-chi-sim traineddata (make setup installs them).
//
// An Engine takes and returns the contract's types (package vision). Input is checked in Go
// before OpenCV or Tesseract sees it (gocv aborts the process on a C++ exception): what is not
// a PNG or JPEG, has no pixels or too many, a template larger than the image or without
// texture, an unknown language — each is a *vision.Error with vision.CodeBadInput saying
// what to fix.
package worker
