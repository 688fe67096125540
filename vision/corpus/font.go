package corpus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
)

// Font names a typeface a screen's text is drawn in.
type Font string

// The fonts. The Go fonts are built in; CJK is a file Debian installs (CJKFontPath), with
// Latin glyphs too.
const (
	Regular Font = "goregular"
	Bold    Font = "gobold"
	Medium  Font = "gomedium"
	Mono    Font = "gomono"
	CJK     Font = "wqy-microhei"
)

// LatinFonts are the fonts Latin screens are drawn in.
var LatinFonts = []Font{Regular, Bold, Medium, Mono, CJK}

// CJKFontPath is the Chinese font Debian's fonts-wqy-microhei installs (make setup).
var CJKFontPath = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"

// ErrNoCJKFont says the Chinese font is not installed.
var ErrNoCJKFont = errors.New("the Chinese font is missing (make setup installs fonts-wqy-microhei)")

var fonts struct {
	sync.Mutex
	parsed map[Font]*opentype.Font
}

// parse returns f parsed, once.
func parse(f Font) (*opentype.Font, error) {
	fonts.Lock()
	defer fonts.Unlock()
	if p, ok := fonts.parsed[f]; ok {
		return p, nil
	}
	var ttf []byte
	switch f {
	case Regular:
		ttf = goregular.TTF
	case Bold:
		ttf = gobold.TTF
	case Medium:
		ttf = gomedium.TTF
	case Mono:
		ttf = gomono.TTF
	case CJK:
		data, err := os.ReadFile(CJKFontPath)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoCJKFont, err)
		}
		if ttf, err = firstFont(data); err != nil {
			return nil, fmt.Errorf("the Chinese font %s: %w", CJKFontPath, err)
		}
	default:
		return nil, fmt.Errorf("unknown font %q (have %v)", f, LatinFonts)
	}
	p, err := opentype.Parse(ttf)
	if err != nil {
		return nil, fmt.Errorf("font %s: %w", f, err)
	}
	if fonts.parsed == nil {
		fonts.parsed = map[Font]*opentype.Font{}
	}
	fonts.parsed[f] = p
	return p, nil
}

// face returns a face of f at size pixels (a face is not safe for concurrent use: one per screen).
func face(f Font, size float64) (font.Face, error) {
	p, err := parse(f)
	if err != nil {
		return nil, err
	}
	return opentype.NewFace(p, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
}

// firstFont is the first font of a TrueType collection as a font file of its own: x/image's
// sfnt refuses the collections Debian's CJK fonts come in ("invalid table offset"), and
// accepts their fonts with the tables copied out and 4-byte aligned.
func firstFont(ttc []byte) ([]byte, error) {
	be := binary.BigEndian
	if len(ttc) < 16 || string(ttc[:4]) != "ttcf" {
		return nil, errors.New("not a TrueType collection")
	}
	dir := int(be.Uint32(ttc[12:]))
	if dir+12 > len(ttc) {
		return nil, errors.New("collection truncated")
	}
	n := int(be.Uint16(ttc[dir+4:]))
	if dir+12+16*n > len(ttc) {
		return nil, errors.New("collection truncated")
	}
	out := append([]byte(nil), ttc[dir:dir+12+16*n]...)
	for i := range n {
		rec := 12 + 16*i
		off, length := int(be.Uint32(out[rec+8:])), int(be.Uint32(out[rec+12:]))
		if off < 0 || length < 0 || off+length > len(ttc) {
			return nil, errors.New("collection table out of bounds")
		}
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		be.PutUint32(out[rec+8:], uint32(len(out)))
		out = append(out, ttc[off:off+length]...)
	}
	return out, nil
}
