// Package service serves a vision engine as the nats micro service corral-vision: the five
// endpoints of package vision (ocr, match, elements, diff, annotate) under vision.Prefix, in
// the queue group vision.QueueGroup, so that N workers share a farm's requests and operators see
// them with `nats micro ls`.
//
// It links no cgo: the engine (vision/worker, built with the `vision` tag) comes in through the
// Engine interface, declared here. A request is decoded within MaxRequestBytes (one with an
// image over vision.MaxImageBytes is refused as it arrives, undecoded: oversized.go), waits for one of
// Options.Parallel slots, runs under a deadline (Options.Timeout) and is answered with JSON, or
// with a micro error: a *vision.Error's code and message, or 500 with nothing of the worker's
// internals (those go to the log).
package service
