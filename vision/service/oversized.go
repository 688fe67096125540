package service

import (
	"bytes"

	"github.com/corral-farm/corral/vision"
)

// An image over vision.MaxImageBytes is refused as its request arrives, before the request is
// decoded: decoding some 11 MB of JSON and base64 only to refuse it cost the worker seconds
// (more than ten under -race), long enough on a loaded machine for its caller to give up on it.
// The sizes are read off the raw request, as encoding/json writes it (wire.go); a request the
// scan cannot read so (an escape in the string, a field it cannot find) is decoded and checked
// after, as before.

// imageFields names the image fields of endpoint op's request, as its JSON has them (wire.go).
func imageFields(op string) []string {
	switch op {
	case vision.EndpointMatch:
		return []string{"image", "template"}
	case vision.EndpointDiff:
		return []string{"before", "after"}
	}
	return []string{"image"} // ocr, elements, annotate
}

// oversizedImage returns the decoded size of the first of fields in the JSON request data whose
// base64 image is larger than vision.MaxImageBytes, or 0. It reads only what it finds plainly:
// a field named in a nested object is junk in the request anyway, and at that size refused.
func oversizedImage(data []byte, fields []string) int {
	for _, f := range fields {
		key := []byte(`"` + f + `":"`)
		i := bytes.Index(data, key)
		if i < 0 {
			continue
		}
		value := data[i+len(key):]
		end := bytes.IndexByte(value, '"')
		if end < 0 {
			continue
		}
		value = value[:end]
		if bytes.IndexByte(value, '\\') >= 0 {
			continue // an escape: the decoder reads it
		}
		n := len(value) / 4 * 3
		n -= bytes.Count(value[max(0, len(value)-2):], []byte("="))
		if n > vision.MaxImageBytes {
			return n
		}
	}
	return 0
}
