package vision

import (
	"fmt"
	"image"
)

// Subjects. Every operation is an endpoint of the micro service Service, under Prefix, in the
// queue group QueueGroup (the micro default would do; naming it keeps it stable).
const (
	Service    = "corral-vision"
	Prefix     = "corral.v1.vision"
	QueueGroup = "corral-vision"

	EndpointOCR      = "ocr"      // OCRRequest → OCRResult
	EndpointMatch    = "match"    // MatchRequest → MatchResult
	EndpointElements = "elements" // ElementsRequest → ElementsResult
	EndpointDiff     = "diff"     // DiffRequest → DiffResult
	EndpointAnnotate = "annotate" // AnnotateRequest → AnnotateResult

	// PingSubject is the micro PING of every worker of the service (nats micro ping).
	PingSubject = "$SRV.PING." + Service

	// WorkerHeader names the worker (its micro service id, as its ping answer has it) on every
	// answer, so that a client knows the workers it may send to directly (DirectSubject).
	WorkerHeader = "Corral-Vision-Worker"

	// CallHeader carries a call's id on each of its requests, so that a client can ask the
	// workers which of them holds it (EndpointHolds) before it sends it again.
	CallHeader = "Corral-Vision-Call"
	// EndpointHolds is served at each worker's own subject only (DirectSubject): HoldsRequest →
	// HoldsResult.
	EndpointHolds = "holds"
)

// HoldsRequest asks a worker whether it holds the call Call (CallHeader): took a request of it
// and has not answered, or answered it within the last few seconds (its answer is on its way).
type HoldsRequest struct {
	V    int    `json:"v"`
	Call string `json:"call"`
}

// HoldsResult answers a HoldsRequest.
type HoldsResult struct {
	V     int  `json:"v"`
	Holds bool `json:"holds"`
}

// DirectSubject is where the worker with micro id id alone serves endpoint: a client sends
// there, rather than to the queue group, to pass over a worker it found hung.
func DirectSubject(id, endpoint string) string { return Prefix + ".at." + id + "." + endpoint }

// WireVersion is the V of every request and answer.
const WireVersion = 1

// MaxImageBytes bounds an encoded image in a request (and NATS's max payload with it).
const MaxImageBytes = 8 << 20

// ImageTooLarge is the refusal of an image of n bytes, more than MaxImageBytes: the client's,
// before it sends one, and a worker's.
func ImageTooLarge(n int) *Error {
	return &Error{Code: CodeBadInput,
		Message: fmt.Sprintf("an image of %d bytes is larger than %d: send a smaller or more compressed one", n, MaxImageBytes)}
}

// checkImages refuses a request with an image over MaxImageBytes, before it is sent.
func checkImages(images ...[]byte) error {
	for _, img := range images {
		if len(img) > MaxImageBytes {
			return ImageTooLarge(len(img))
		}
	}
	return nil
}

// Box is a rectangle in pixels of the request's image: X, Y its top-left corner.
type Box struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Rect is b as an image.Rectangle.
func (b Box) Rect() image.Rectangle { return image.Rect(b.X, b.Y, b.X+b.W, b.Y+b.H) }

// Center is the middle of b.
func (b Box) Center() image.Point { return image.Pt(b.X+b.W/2, b.Y+b.H/2) }

// OCRRequest asks for the text of an image.
type OCRRequest struct {
	V     int    `json:"v"`
	Image []byte `json:"image"` // PNG or JPEG
	// Languages are Tesseract's names ("eng", "chi_sim"); empty: eng and chi_sim.
	Languages []string `json:"languages,omitempty"`
}

// Word is one recognised word.
type Word struct {
	Text       string  `json:"text"`
	Box        Box     `json:"box"`
	Confidence float64 `json:"confidence"` // 0-1
}

// Line is one recognised line: its words, joined.
type Line struct {
	Text       string  `json:"text"`
	Box        Box     `json:"box"`
	Confidence float64 `json:"confidence"` // the lowest of its words'
	Words      []Word  `json:"words"`
}

// OCRResult is the text of an image, by line, in reading order.
type OCRResult struct {
	V      int    `json:"v"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Lines  []Line `json:"lines"`
}

// MatchRequest asks where a template image shows in an image, at scales from MinScale to
// MaxScale of the template's own size (0: 0.75 and 1.5).
type MatchRequest struct {
	V         int     `json:"v"`
	Image     []byte  `json:"image"`
	Template  []byte  `json:"template"`
	Threshold float64 `json:"threshold,omitempty"` // normalised correlation 0-1; 0: 0.8
	MinScale  float64 `json:"min_scale,omitempty"`
	MaxScale  float64 `json:"max_scale,omitempty"`
	Max       int     `json:"max,omitempty"` // matches to return, best first; 0: 5
}

// Match is one place the template shows.
type Match struct {
	Box   Box     `json:"box"`
	Score float64 `json:"score"` // normalised correlation 0-1
	Scale float64 `json:"scale"`
}

// MatchResult are the matches at or above the threshold, best first (none: not found): by
// score, highest first; equal scores (to the 4 decimals answered) top-most, then left-most;
// but scores within 0.02 (gray correlation does not see colour) nearest the template's mean
// colour first (docs/vision.md).
type MatchResult struct {
	V       int     `json:"v"`
	Matches []Match `json:"matches"`
}

// ElementsRequest asks for an element listing of a screen that has no UI tree (peek).
type ElementsRequest struct {
	V         int      `json:"v"`
	Image     []byte   `json:"image"`
	Languages []string `json:"languages,omitempty"`
}

// Element is one thing on a screen: a text line or an icon-like shape.
type Element struct {
	ID         string  `json:"id"`   // stable for the same content at the same place: "t3f9c", "i81a0"
	Kind       string  `json:"kind"` // "text" or "icon"
	Text       string  `json:"text,omitempty"`
	Box        Box     `json:"box"`
	Confidence float64 `json:"confidence"`
}

// ElementsResult lists a screen's elements, top to bottom, left to right.
type ElementsResult struct {
	V        int       `json:"v"`
	Width    int       `json:"width"`
	Height   int       `json:"height"`
	Elements []Element `json:"elements"`
}

// DiffRequest asks whether a screen changed between two frames of the same size.
type DiffRequest struct {
	V      int    `json:"v"`
	Before []byte `json:"before"`
	After  []byte `json:"after"`
}

// DiffResult says how much changed and where.
type DiffResult struct {
	V       int     `json:"v"`
	Changed bool    `json:"changed"`
	Ratio   float64 `json:"ratio"` // changed pixels over all
	Boxes   []Box   `json:"boxes,omitempty"`
}

// Mark is a box to draw, with a label.
type Mark struct {
	Box   Box    `json:"box"`
	Label string `json:"label,omitempty"`
}

// AnnotateRequest asks for an image with boxes drawn on it, for people to look at.
type AnnotateRequest struct {
	V     int    `json:"v"`
	Image []byte `json:"image"`
	Marks []Mark `json:"marks"`
}

// AnnotateResult is the annotated image.
type AnnotateResult struct {
	V    int    `json:"v"`
	JPEG []byte `json:"jpeg"`
}

// Error codes a worker answers with (the micro error's code).
const (
	CodeBadInput = "400" // not an image, too large, a template larger than the image, ...
	CodeFailed   = "500" // the worker failed
	CodeBusy     = "503" // the worker's queue is full: another, or the same a little later, may take it
)
