// Package corpus draws labelled, device-like screens for measuring the vision worker: settings
// lists, app grids, chat lists, forms and Chinese screens, in several fonts and sizes, light and
// dark, each with its ground truth (every word and its box, the elements a tap must land in, the
// icons), and the same screens as a camera would see them (perspective, blur, noise, glare,
// JPEG), the ground truth following the transform.
//
// Everything is generated from a seed, deterministically, in pure Go (no cgo, no build tag): the
// worker's accuracy tests and BenchmarkAccuracy, and the tools' tap_ocr benchmark, draw the same
// screens. Latin text uses the Go fonts; Chinese text uses Debian's WenQuanYi Micro Hei
// (fonts-wqy-microhei, which make setup installs): without it, Chinese screens fail with
// ErrNoCJKFont.
//
//	s, err := corpus.Draw(corpus.Spec{Layout: corpus.Settings, Dark: true, Font: corpus.Bold, Size: 30, Seed: 7})
//	png, err := s.PNG()
//	... OCR png ...
//	score := corpus.ScoreOCR(s.Words, result)
package corpus
