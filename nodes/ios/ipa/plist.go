package ipa

import (
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"unicode/utf16"
)

// maxValue bounds a string value read; a bundle id or version is far shorter.
const maxValue uint64 = 1024

// wanted are the keys read; the rest of the plist is skipped.
var wanted = map[string]bool{"CFBundleIdentifier": true, "CFBundleShortVersionString": true, "CFBundleVersion": true}

// maxKey is the longest wanted key, so that longer keys are skipped unread.
const maxKey uint64 = uint64(len("CFBundleShortVersionString"))

// xmlStrings reads the wanted keys' string values from an XML plist's top dictionary.
// encoding/xml bounds nesting, and the input is bounded by maxInfoPlist.
func xmlStrings(b []byte) (map[string]string, error) {
	var p struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Text    string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("malformed XML plist: %w", err)
	}
	out := map[string]string{}
	items := p.Dict.Items
	for i := 0; i+1 < len(items); i++ {
		k, v := items[i], items[i+1]
		if k.XMLName.Local == "key" && wanted[k.Text] && v.XMLName.Local == "string" && uint64(len(v.Text)) <= maxValue {
			out[k.Text] = v.Text
			i++
		}
	}
	return out, nil
}

// bplist is a binary plist being read: its objects' offsets and references.
type bplist struct {
	b                []byte
	offSize, refSize uint64
	n, table         uint64
}

var errBplist = errors.New("malformed binary plist")

// binaryStrings reads the wanted keys' string values from a binary plist's top dictionary,
// reading no other object than those keys and values.
func binaryStrings(b []byte) (map[string]string, error) {
	const trailerLen = 32
	if len(b) < 8+trailerLen {
		return nil, fmt.Errorf("%w: %d bytes is too short", errBplist, len(b))
	}
	t := b[len(b)-trailerLen:]
	p := bplist{b: b, offSize: uint64(t[6]), refSize: uint64(t[7]), n: binary.BigEndian.Uint64(t[8:]), table: binary.BigEndian.Uint64(t[24:])}
	top, end := binary.BigEndian.Uint64(t[16:]), uint64(len(b)-trailerLen)
	switch {
	case p.offSize < 1 || p.offSize > 8 || p.refSize < 1 || p.refSize > 8:
		return nil, fmt.Errorf("%w: integer sizes %d and %d", errBplist, p.offSize, p.refSize)
	case p.n == 0 || top >= p.n || p.table < 8 || p.table > end || (end-p.table)/p.offSize < p.n:
		return nil, fmt.Errorf("%w: %d objects, top %d, offset table at %d", errBplist, p.n, top, p.table)
	}
	off, ok := p.object(top)
	if !ok || p.b[off]>>4 != 0xD {
		return nil, fmt.Errorf("%w: the top object is no dictionary", errBplist)
	}
	count, at, ok := p.count(off)
	if !ok || count > (p.table-at)/p.refSize/2 {
		return nil, fmt.Errorf("%w: the top dictionary runs past its data", errBplist)
	}
	out := map[string]string{}
	for k := range count {
		key, ok := p.str(p.ref(at+k*p.refSize), maxKey)
		if !ok || !wanted[key] {
			continue
		}
		if v, ok := p.str(p.ref(at+(count+k)*p.refSize), maxValue); ok {
			out[key] = v
		}
	}
	return out, nil
}

// object is where object i starts.
func (p *bplist) object(i uint64) (uint64, bool) {
	if i >= p.n {
		return 0, false
	}
	off := uintBE(p.b[p.table+i*p.offSize:], p.offSize)
	return off, off >= 8 && off < p.table
}

// ref is the object reference at off.
func (p *bplist) ref(off uint64) uint64 { return uintBE(p.b[off:], p.refSize) }

// count reads the length of the object at off (its marker's low nibble, or the integer that
// follows) and where its content starts.
func (p *bplist) count(off uint64) (n, at uint64, ok bool) {
	n, at = uint64(p.b[off]&0x0F), off+1
	if n != 0x0F {
		return n, at, true
	}
	if at >= p.table || p.b[at]>>4 != 0x1 {
		return 0, 0, false
	}
	width := uint64(1) << (p.b[at] & 0x0F)
	if width > 8 || at+1+width > p.table {
		return 0, 0, false
	}
	return uintBE(p.b[at+1:], width), at + 1 + width, true
}

// str reads object i when it is a string (ASCII or UTF-16) of at most limit characters.
func (p *bplist) str(i uint64, limit uint64) (string, bool) {
	off, ok := p.object(i)
	if !ok {
		return "", false
	}
	kind := p.b[off] >> 4
	if kind != 0x5 && kind != 0x6 {
		return "", false
	}
	n, at, ok := p.count(off)
	if !ok || n > limit {
		return "", false
	}
	if kind == 0x5 {
		if n > p.table-at {
			return "", false
		}
		return string(p.b[at : at+n]), true
	}
	if 2*n > p.table-at {
		return "", false
	}
	u := make([]uint16, n)
	for k := range u {
		u[k] = binary.BigEndian.Uint16(p.b[at+2*uint64(k):])
	}
	return string(utf16.Decode(u)), true
}

// uintBE reads a big-endian unsigned integer of width bytes (1 to 8).
func uintBE(b []byte, width uint64) uint64 {
	var v uint64
	for _, c := range b[:width] {
		v = v<<8 | uint64(c)
	}
	return v
}
