package tools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"sync"
)

// JPEG markers of the segments read from image/jpeg's header.
const (
	markerDQT = 0xdb
	markerDHT = 0xc4
)

// jpegTables are what encodeRGBA writes a JPEG of one quality with: image/jpeg's own header
// (so that the tables and markers are the standard library's) and the tables read back from it.
type jpegTables struct {
	head  []byte         // SOI to the end of the SOS header
	sof   int            // where the SOF0 segment starts in head
	quant [2][64]float32 // luma and chroma quantizers (see quantizers)
	huff  [4][]uint32    // luma DC, luma AC, chroma DC, chroma AC: value → length<<24 | code
}

var tablesByQuality sync.Map // int → *jpegTables

// tablesFor returns the tables of quality, made once from image/jpeg's header for a tiny image.
func tablesFor(quality int) (*jpegTables, error) {
	if t, ok := tablesByQuality.Load(quality); ok {
		return t.(*jpegTables), nil
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 16, 16)), &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encode JPEG: %w", err)
	}
	head, _, err := splitJPEG(buf.Bytes())
	if err != nil {
		return nil, err
	}
	t, err := readTables(head)
	if err != nil {
		return nil, fmt.Errorf("encode JPEG: image/jpeg's header: %w", err)
	}
	tablesByQuality.Store(quality, t)
	return t, nil
}

// readTables reads the SOF0, DQT and DHT segments of a baseline JPEG header.
func readTables(head []byte) (*jpegTables, error) {
	t := &jpegTables{head: head, sof: -1}
	var found [2]bool
	for i := 2; i+4 <= len(head); {
		marker, n := head[i+1], int(binary.BigEndian.Uint16(head[i+2:]))
		if head[i] != 0xff || n < 2 || i+2+n > len(head) {
			return nil, errors.New("a malformed segment")
		}
		seg := head[i+4 : i+2+n]
		switch marker {
		case markerSOF0:
			t.sof = i
		case markerDQT:
			for len(seg) >= 65 && seg[0] < 2 {
				var table [64]uint8
				copy(table[:], seg[1:65])
				t.quant[seg[0]], found[seg[0]] = quantizers(&table), true
				seg = seg[65:]
			}
		case markerDHT:
			for len(seg) >= 17 {
				class, id := seg[0]>>4, seg[0]&0x0f
				counts, total := seg[1:17], 0
				for _, c := range counts {
					total += int(c)
				}
				if class > 1 || id > 1 || len(seg) < 17+total {
					return nil, errors.New("a malformed Huffman table")
				}
				t.huff[2*id+class] = huffmanCodes(counts, seg[17:17+total])
				seg = seg[17+total:]
			}
		}
		i += 2 + n
	}
	if t.sof < 0 || !found[0] || !found[1] || t.huff[0] == nil || t.huff[1] == nil || t.huff[2] == nil || t.huff[3] == nil {
		return nil, errors.New("no SOF0, or not both quantization and all four Huffman tables")
	}
	return t, nil
}

// huffmanCodes returns the canonical Huffman codes of a DHT table: counts[i] codes of i+1 bits
// for values, in order.
func huffmanCodes(counts, values []byte) []uint32 {
	codes := make([]uint32, 256)
	code, k := uint32(0), 0
	for i, c := range counts {
		for range c {
			codes[values[k]] = uint32(i+1)<<24 | code
			code++
			k++
		}
		code <<= 1
	}
	return codes
}
