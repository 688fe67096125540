package apk

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// Chunk types of Android's binary XML (frameworks/base/libs/androidfw ResourceTypes.h).
const (
	chunkXML          = 0x0003
	chunkStringPool   = 0x0001
	chunkResourceMap  = 0x0180
	chunkStartElement = 0x0102

	poolUTF8 = 1 << 8 // the string pool's UTF8_FLAG

	typeString = 0x03 // Res_value types an attribute may hold
	typeIntDec = 0x10
	typeIntHex = 0x11

	attrVersionCode = 0x0101021b // android:versionCode's resource id
	attrVersionName = 0x0101021c

	maxString = 1024 // longer strings are no package name or version
)

var le = binary.LittleEndian

// axml is a binary XML document being read: its string pool and resource map.
type axml struct {
	pool    []byte // the string pool chunk
	count   uint32 // strings in it
	start   uint32 // where the string data starts, from the chunk's start
	offsets uint32 // where the offsets start, from the chunk's start
	utf8    bool
	resIDs  []byte // the resource map's ids, 4 bytes each, by string index
}

// ParseManifest reads the package name and version from a binary AndroidManifest.xml: the
// attributes of its first element, which must be <manifest>.
func ParseManifest(b []byte) (Manifest, error) {
	if len(b) < 8 || le.Uint16(b) != chunkXML || le.Uint16(b[2:]) < 8 {
		return Manifest{}, fmt.Errorf("%w: not Android binary XML", ErrNoManifest)
	}
	var x axml
	for off := int(le.Uint16(b[2:])); off < len(b); {
		if len(b)-off < 8 {
			return Manifest{}, fmt.Errorf("%w: a chunk at %d is cut short", ErrNoManifest, off)
		}
		typ, hdr, size := le.Uint16(b[off:]), int(le.Uint16(b[off+2:])), int(le.Uint32(b[off+4:]))
		if hdr < 8 || size < hdr || size > len(b)-off {
			return Manifest{}, fmt.Errorf("%w: a chunk at %d has sizes %d/%d", ErrNoManifest, off, hdr, size)
		}
		c := b[off : off+size]
		switch typ {
		case chunkStringPool:
			if err := x.setPool(c, hdr); err != nil {
				return Manifest{}, err
			}
		case chunkResourceMap:
			x.resIDs = c[hdr:]
		case chunkStartElement:
			return x.manifest(c, hdr)
		}
		off += size
	}
	return Manifest{}, fmt.Errorf("%w: no <manifest> element", ErrNoManifest)
}

// setPool keeps the string pool chunk c, whose header is hdr bytes.
func (x *axml) setPool(c []byte, hdr int) error {
	if hdr < 28 {
		return fmt.Errorf("%w: string pool header of %d bytes", ErrNoManifest, hdr)
	}
	x.pool, x.count, x.start, x.offsets = c, le.Uint32(c[8:]), le.Uint32(c[20:]), uint32(hdr)
	x.utf8 = le.Uint32(c[16:])&poolUTF8 != 0
	if uint64(x.offsets)+4*uint64(x.count) > uint64(len(c)) || x.start > uint32(len(c)) {
		return fmt.Errorf("%w: string pool of %d strings does not fit its %d bytes", ErrNoManifest, x.count, len(c))
	}
	return nil
}

// str returns string i of the pool; ok is false when there is none.
func (x *axml) str(i uint32) (string, bool) {
	if i >= x.count {
		return "", false
	}
	p := uint64(x.start) + uint64(le.Uint32(x.pool[x.offsets+4*i:]))
	if p >= uint64(len(x.pool)) {
		return "", false
	}
	s := x.pool[p:]
	if x.utf8 {
		_, s, ok := len8(s) // the length in UTF-16 units, unused
		if !ok {
			return "", false
		}
		n, s, ok := len8(s)
		if !ok || n > maxString || n > len(s) {
			return "", false
		}
		return string(s[:n]), true
	}
	if len(s) < 2 {
		return "", false
	}
	n := int(le.Uint16(s))
	s = s[2:]
	if n&0x8000 != 0 {
		if len(s) < 2 {
			return "", false
		}
		n = (n&0x7fff)<<16 | int(le.Uint16(s))
		s = s[2:]
	}
	if n > maxString || 2*n > len(s) {
		return "", false
	}
	u := make([]uint16, n)
	for k := range u {
		u[k] = le.Uint16(s[2*k:])
	}
	return string(utf16.Decode(u)), true
}

// len8 reads a UTF-8 pool string's length: one byte, or two when the first has its top bit.
func len8(s []byte) (int, []byte, bool) {
	switch {
	case len(s) < 1:
		return 0, nil, false
	case s[0]&0x80 == 0:
		return int(s[0]), s[1:], true
	case len(s) < 2:
		return 0, nil, false
	}
	return int(s[0]&0x7f)<<8 | int(s[1]), s[2:], true
}

// resID is the resource id the resource map gives string i's attribute name, or 0.
func (x *axml) resID(i uint32) uint32 {
	if uint64(i) >= uint64(len(x.resIDs)/4) {
		return 0
	}
	return le.Uint32(x.resIDs[4*i:])
}

// manifest reads the first element, chunk c with a header of hdr bytes.
func (x *axml) manifest(c []byte, hdr int) (Manifest, error) {
	const extLen, minAttr = 20, 20
	if len(c)-hdr < extLen {
		return Manifest{}, fmt.Errorf("%w: the first element is cut short", ErrNoManifest)
	}
	ext := c[hdr:]
	if name, _ := x.str(le.Uint32(ext[4:])); name != "manifest" {
		return Manifest{}, fmt.Errorf("%w: the first element is <%.40s>, not <manifest>", ErrNoManifest, name)
	}
	at, size, n := int(le.Uint16(ext[8:])), int(le.Uint16(ext[10:])), int(le.Uint16(ext[12:]))
	if size < minAttr || at > len(ext) || n > (len(ext)-at)/size {
		return Manifest{}, fmt.Errorf("%w: <manifest>'s %d attributes do not fit", ErrNoManifest, n)
	}
	var m Manifest
	for k := range n {
		a := ext[at+k*size:]
		nameIdx, raw, typ, data := le.Uint32(a[4:]), le.Uint32(a[8:]), a[15], le.Uint32(a[16:])
		name, _ := x.str(nameIdx)
		id := x.resID(nameIdx)
		switch {
		case name == "package":
			m.Package = x.value(raw, typ, data)
		case id == attrVersionName || id == 0 && name == "versionName":
			m.VersionName = x.value(raw, typ, data)
		case id == attrVersionCode || id == 0 && name == "versionCode":
			if typ == typeIntDec || typ == typeIntHex {
				m.VersionCode = data
			}
		}
	}
	if !validPackage(m.Package) {
		return Manifest{}, fmt.Errorf("%w: <manifest package=%q> is no package name", ErrNoManifest, m.Package)
	}
	return m, nil
}

// value is an attribute's string: its raw value, else a string-typed value; "" for the rest
// (a reference to a resource, which only resources.arsc resolves).
func (x *axml) value(raw uint32, typ byte, data uint32) string {
	if s, ok := x.str(raw); ok {
		return s
	}
	if typ == typeString {
		s, _ := x.str(data)
		return s
	}
	return ""
}

// validPackage reports whether s is a package name Android accepts: two or more dotted parts of
// letters, digits and '_', each starting with a letter.
func validPackage(s string) bool {
	parts := 0
	for i, start := 0, true; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !start:
			start = true
			continue
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case (c >= '0' && c <= '9' || c == '_') && !start:
		default:
			return false
		}
		if start {
			parts++
		}
		start = false
	}
	return parts >= 2 && s[len(s)-1] != '.'
}
