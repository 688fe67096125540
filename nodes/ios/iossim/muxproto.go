package iossim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"howett.net/plist"
)

// usbmuxd's wire format: a 16-byte little-endian header (total length, protocol version,
// message type, tag), then a payload. Version 1 with message type 8 carries an XML plist.
const (
	muxHeaderLen    = 16
	muxVersionPlist = 1
	muxMessagePlist = 8
	maxMuxMessage   = 1 << 20 // a SavePairRecord, the largest request, is about 10 KiB
)

// Result numbers usbmuxd answers with.
const (
	resultOK          = 0
	resultBadCommand  = 1
	resultBadDevice   = 2 // also "no pair record", usbmuxd's ENOENT
	resultConnRefused = 3
	resultBadVersion  = 6
)

// muxHeader is the header of every usbmuxd message.
type muxHeader struct {
	Length, Version, Message, Tag uint32
}

var errMuxFraming = errors.New("bad usbmuxd framing")

// readMuxMessage reads one message, exactly its bytes: after a Connect the same connection
// carries the device's bytes.
func readMuxMessage(r io.Reader) (muxHeader, []byte, error) {
	var b [muxHeaderLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return muxHeader{}, nil, err
	}
	h := muxHeader{
		Length:  binary.LittleEndian.Uint32(b[0:]),
		Version: binary.LittleEndian.Uint32(b[4:]),
		Message: binary.LittleEndian.Uint32(b[8:]),
		Tag:     binary.LittleEndian.Uint32(b[12:]),
	}
	if h.Length < muxHeaderLen || h.Length > maxMuxMessage {
		return h, nil, fmt.Errorf("%w: length %d, want %d to %d", errMuxFraming, h.Length, muxHeaderLen, maxMuxMessage)
	}
	payload, err := readN(r, uint64(h.Length-muxHeaderLen))
	if err != nil {
		return h, nil, fmt.Errorf("reading a %d-byte usbmuxd payload: %w", h.Length-muxHeaderLen, err)
	}
	return h, payload, nil
}

// writeMuxMessage sends v as a plist message with the given tag, in one write.
func writeMuxMessage(w io.Writer, tag uint32, v any) error {
	body, err := plist.Marshal(v, plist.XMLFormat)
	if err != nil {
		return fmt.Errorf("encoding a usbmuxd reply: %w", err)
	}
	b := make([]byte, muxHeaderLen, muxHeaderLen+len(body))
	binary.LittleEndian.PutUint32(b[0:], uint32(muxHeaderLen+len(body)))
	binary.LittleEndian.PutUint32(b[4:], muxVersionPlist)
	binary.LittleEndian.PutUint32(b[8:], muxMessagePlist)
	binary.LittleEndian.PutUint32(b[12:], tag)
	_, err = w.Write(append(b, body...))
	return err
}

// muxRequest is a decoded usbmuxd request: the fields any of its requests use.
type muxRequest struct {
	MessageType    string
	DeviceID       uint64
	Port           uint16 // host byte order (the wire has it in network order)
	PairRecordID   string
	PairRecordData []byte
}

// errMuxRequest is a well-framed message usbmuxd cannot act on: it answers a result number.
type errMuxRequest struct {
	number uint64
	why    string
}

func (e *errMuxRequest) Error() string { return e.why }

// decodeMuxRequest checks the header and decodes the plist payload.
func decodeMuxRequest(h muxHeader, payload []byte) (muxRequest, error) {
	if h.Version != muxVersionPlist {
		return muxRequest{}, &errMuxRequest{resultBadVersion, fmt.Sprintf("protocol version %d; only the plist protocol (1) is spoken", h.Version)}
	}
	if h.Message != muxMessagePlist {
		return muxRequest{}, &errMuxRequest{resultBadCommand, fmt.Sprintf("message type %d; only plist messages (8) are understood", h.Message)}
	}
	m, err := decodeDict(payload)
	if err != nil {
		return muxRequest{}, &errMuxRequest{resultBadCommand, err.Error()}
	}
	req := muxRequest{
		MessageType:    dictString(m, "MessageType"),
		PairRecordID:   dictString(m, "PairRecordID"),
		PairRecordData: dictBytes(m, "PairRecordData"),
	}
	if req.MessageType == "" {
		return req, &errMuxRequest{resultBadCommand, "no MessageType"}
	}
	req.DeviceID, _ = dictUint(m, "DeviceID")
	if p, ok := dictUint(m, "PortNumber"); ok {
		if p > 0xFFFF {
			return req, &errMuxRequest{resultBadCommand, fmt.Sprintf("PortNumber %d is not a port", p)}
		}
		// usbmuxd takes the port in network byte order: go-ios sends Ntohs(port).
		req.Port = bits.ReverseBytes16(uint16(p))
	}
	return req, nil
}

// Replies, with the keys real usbmuxd uses.

type muxResult struct {
	MessageType string // "Result"
	Number      uint64
}

type muxDeviceList struct {
	DeviceList []muxAttached
}

type muxAttached struct {
	DeviceID    uint64
	MessageType string // "Attached"
	Properties  muxProperties
}

type muxProperties struct {
	ConnectionSpeed uint64
	ConnectionType  string
	DeviceID        uint64
	LocationID      uint64
	ProductID       uint64
	SerialNumber    string
	USBSerialNumber string
	UDID            string
}

// muxNotice is a Detached or Paired notice: usbmuxd sends only the DeviceID with these.
type muxNotice struct {
	DeviceID    uint64
	MessageType string
}

type muxBUID struct {
	BUID string
}

type muxPairRecord struct {
	PairRecordData []byte
}
