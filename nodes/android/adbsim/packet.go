package adbsim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Transport commands: the four ASCII letters read as a little-endian word.
const (
	cmdCNXN = 0x4e584e43
	cmdAUTH = 0x48545541
	cmdOPEN = 0x4e45504f
	cmdOKAY = 0x59414b4f
	cmdCLSE = 0x45534c43
	cmdWRTE = 0x45545257
	cmdSYNC = 0x434e5953
	cmdSTLS = 0x534c5453
)

const (
	headerSize = 24

	versionMin          = 0x01000000 // checksums on every packet
	versionSkipChecksum = 0x01000001 // checksums are 0 and not checked

	// maxPacketData is the largest payload the decoder accepts: adb's MAX_PAYLOAD, what a host
	// may send before the CNXN exchange settles on less.
	maxPacketData = 1 << 20
	// deviceMaxData is the most this device offers in its CNXN.
	deviceMaxData = 256 << 10
)

var (
	errBadMagic = errors.New("adb packet: bad magic (not command ^ 0xffffffff)")
	errTooLarge = errors.New("adb packet: payload larger than the negotiated maximum")
)

// packet is one transport message: a 24-byte little-endian header and its payload.
type packet struct {
	cmd, arg0, arg1 uint32
	check           uint32 // data_crc32 as received: in fact the sum of the payload bytes
	data            []byte
}

func (p packet) String() string {
	return fmt.Sprintf("%s(%d, %d, %d bytes)", cmdName(p.cmd), p.arg0, p.arg1, len(p.data))
}

func cmdName(c uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], c)
	for _, ch := range b {
		if ch < 'A' || ch > 'Z' {
			return fmt.Sprintf("0x%08x", c)
		}
	}
	return string(b[:])
}

// checksum is adb's "crc32": the sum of the payload bytes.
func checksum(data []byte) uint32 {
	var s uint32
	for _, b := range data {
		s += uint32(b)
	}
	return s
}

// header encodes p's header, with the payload's checksum when the connection's protocol
// version still has them (before 0x01000001) and 0 after, as adbd does: summing a 10 MB
// framebuffer costs the device milliseconds for a field no current host reads.
func (p packet) header(withChecksum bool) []byte {
	h := make([]byte, headerSize)
	binary.LittleEndian.PutUint32(h[0:], p.cmd)
	binary.LittleEndian.PutUint32(h[4:], p.arg0)
	binary.LittleEndian.PutUint32(h[8:], p.arg1)
	binary.LittleEndian.PutUint32(h[12:], uint32(len(p.data)))
	if withChecksum {
		binary.LittleEndian.PutUint32(h[16:], checksum(p.data))
	}
	binary.LittleEndian.PutUint32(h[20:], p.cmd^0xffffffff)
	return h
}

// decodePacket reads one packet from r, refusing a bad magic or a payload over maxData bytes
// before reading the payload. It does not check the checksum (see conn.checkData) nor whether
// the command is known.
func decodePacket(r io.Reader, maxData uint32) (packet, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return packet{}, err
	}
	p := packet{
		cmd:   binary.LittleEndian.Uint32(h[0:]),
		arg0:  binary.LittleEndian.Uint32(h[4:]),
		arg1:  binary.LittleEndian.Uint32(h[8:]),
		check: binary.LittleEndian.Uint32(h[16:]),
	}
	n := binary.LittleEndian.Uint32(h[12:])
	if magic := binary.LittleEndian.Uint32(h[20:]); magic != p.cmd^0xffffffff {
		return packet{}, fmt.Errorf("%w: command 0x%08x, magic 0x%08x", errBadMagic, p.cmd, magic)
	}
	if n > maxData {
		return packet{}, fmt.Errorf("%w: %s carries %d bytes, the limit is %d", errTooLarge, cmdName(p.cmd), n, maxData)
	}
	if n > 0 {
		p.data = make([]byte, n)
		if _, err := io.ReadFull(r, p.data); err != nil {
			return packet{}, fmt.Errorf("adb packet: %s payload cut short after the header: %w", cmdName(p.cmd), noEOF(err))
		}
	}
	return p, nil
}

// noEOF turns io.EOF inside a packet into io.ErrUnexpectedEOF: only a clean end between packets
// is io.EOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
