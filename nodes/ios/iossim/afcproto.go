package iossim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The AFC wire format: a 40-byte little-endian header (magic "CFA6LPAA", the packet's entire
// length, the length of header plus header payload, the packet number, the operation), then a
// header payload (paths, handles, sizes) and a payload (file data).
const (
	afcMagic     = 0x4141504c36414643
	afcHeaderLen = 40
	maxAFCPacket = 16 << 20 // go-ios writes 32 KiB at a time; other hosts up to a few MiB
	maxAFCRead   = 4 << 20  // the most one FileRead answers
)

// AFC operations.
const (
	afcOpStatus                = 0x01
	afcOpData                  = 0x02
	afcOpReadDir               = 0x03
	afcOpTruncate              = 0x07
	afcOpRemovePath            = 0x08
	afcOpMakeDir               = 0x09
	afcOpGetFileInfo           = 0x0A
	afcOpGetDevInfo            = 0x0B
	afcOpFileOpen              = 0x0D
	afcOpFileOpenResult        = 0x0E
	afcOpFileRead              = 0x0F
	afcOpFileWrite             = 0x10
	afcOpFileSeek              = 0x11
	afcOpFileTell              = 0x12
	afcOpFileTellResult        = 0x13
	afcOpFileClose             = 0x14
	afcOpFileSetSize           = 0x15
	afcOpRenamePath            = 0x18
	afcOpFileLock              = 0x1B
	afcOpMakeLink              = 0x1C
	afcOpSetFileTime           = 0x1E
	afcOpRemovePathAndContents = 0x22
)

// afcPacket is one AFC packet.
type afcPacket struct {
	Num, Op       uint64
	HeaderPayload []byte
	Payload       []byte
}

var errAFCFraming = errors.New("bad AFC framing")

// readAFCPacket reads one packet; a bad magic or impossible lengths end the connection, as
// nothing after them can be trusted.
func readAFCPacket(r io.Reader) (afcPacket, error) {
	var h [afcHeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return afcPacket{}, err
	}
	magic := binary.LittleEndian.Uint64(h[0:])
	entire := binary.LittleEndian.Uint64(h[8:])
	this := binary.LittleEndian.Uint64(h[16:])
	p := afcPacket{Num: binary.LittleEndian.Uint64(h[24:]), Op: binary.LittleEndian.Uint64(h[32:])}
	switch {
	case magic != afcMagic:
		return p, fmt.Errorf("%w: magic %#x, want %#x (\"CFA6LPAA\")", errAFCFraming, magic, uint64(afcMagic))
	case this < afcHeaderLen || entire < this:
		return p, fmt.Errorf("%w: lengths %d and %d", errAFCFraming, entire, this)
	case entire-afcHeaderLen > maxAFCPacket:
		return p, fmt.Errorf("%w: %d bytes, at most %d", errAFCFraming, entire, maxAFCPacket)
	}
	var err error
	if p.HeaderPayload, err = readN(r, this-afcHeaderLen); err != nil {
		return p, fmt.Errorf("reading an AFC header payload: %w", err)
	}
	if p.Payload, err = readN(r, entire-this); err != nil {
		return p, fmt.Errorf("reading an AFC payload: %w", err)
	}
	return p, nil
}

// writeAFCPacket sends a packet in one write.
func writeAFCPacket(w io.Writer, p afcPacket) error {
	this := afcHeaderLen + len(p.HeaderPayload)
	b := make([]byte, afcHeaderLen, this+len(p.Payload))
	binary.LittleEndian.PutUint64(b[0:], afcMagic)
	binary.LittleEndian.PutUint64(b[8:], uint64(this+len(p.Payload)))
	binary.LittleEndian.PutUint64(b[16:], uint64(this))
	binary.LittleEndian.PutUint64(b[24:], p.Num)
	binary.LittleEndian.PutUint64(b[32:], p.Op)
	b = append(append(b, p.HeaderPayload...), p.Payload...)
	_, err := w.Write(b)
	return err
}

// le64 is a little-endian uint64, AFC's integer in header payloads.
func le64(v uint64) []byte {
	return binary.LittleEndian.AppendUint64(nil, v)
}
