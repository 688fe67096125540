package iossim

import (
	"errors"
	"io"
	"net"

	"howett.net/plist"
)

// serveMux answers one client's usbmuxd requests, each with the request's tag, until the
// client leaves, Listens, or Connects (then the connection belongs to the device's service).
func (h *Host) serveMux(mc *muxConn) {
	c := mc.c
	defer h.forget(mc)
	defer c.Close()
	for {
		hdr, payload, err := readMuxMessage(c)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				h.log.Debug("usbmuxd client connection ends", "err", err)
			}
			return
		}
		result := func(n uint64) error {
			return writeMuxMessage(c, hdr.Tag, muxResult{MessageType: "Result", Number: n})
		}
		req, err := decodeMuxRequest(hdr, payload)
		if err != nil {
			var bad *errMuxRequest
			n := uint64(resultBadCommand)
			if errors.As(err, &bad) {
				n = bad.number
			}
			h.log.Debug("bad usbmuxd request", "err", err)
			if result(n) != nil {
				return
			}
			continue
		}
		switch req.MessageType {
		case "ListDevices":
			err = writeMuxMessage(c, hdr.Tag, h.deviceList())
		case "Listen":
			h.listen(c, hdr.Tag)
			return
		case "ReadBUID":
			err = writeMuxMessage(c, hdr.Tag, muxBUID{BUID: h.buid})
		case "ReadPairRecord":
			err = h.readPairRecord(c, hdr.Tag, req.PairRecordID)
		case "SavePairRecord":
			err = result(h.savePairRecord(req))
		case "DeletePairRecord":
			n := uint64(resultBadDevice)
			if d := h.knownDevice(req.PairRecordID); d != nil {
				d.deletePairRecord()
				n = resultOK
			}
			err = result(n)
		case "Connect":
			if h.connect(mc, hdr.Tag, req) {
				return
			}
		default:
			err = result(resultBadCommand)
		}
		if err != nil {
			return
		}
	}
}

// readPairRecord answers with the record as a plist data blob, or, for a device without one
// (never paired, untrusted), usbmuxd's error result.
func (h *Host) readPairRecord(c io.Writer, tag uint32, udid string) error {
	var rec *pairRecord
	if d := h.knownDevice(udid); d != nil {
		rec = d.pairRecord()
	}
	if rec == nil {
		return writeMuxMessage(c, tag, muxResult{MessageType: "Result", Number: resultBadDevice})
	}
	data, err := plist.Marshal(rec, plist.XMLFormat)
	if err != nil {
		return err
	}
	return writeMuxMessage(c, tag, muxPairRecord{PairRecordData: data})
}

// savePairRecord stores a host's record for a known device and tells Listen clients.
func (h *Host) savePairRecord(req muxRequest) uint64 {
	d := h.knownDevice(req.PairRecordID)
	if d == nil {
		return resultBadDevice
	}
	var rec pairRecord
	if err := decodePlist(req.PairRecordData, &rec); err != nil || rec.HostID == "" {
		h.log.Debug("refusing a pair record", "udid", req.PairRecordID, "err", err)
		return resultBadCommand
	}
	d.savePairRecord(&rec)
	h.notifyPaired(d)
	return resultOK
}

// connect is usbmuxd's Connect. On success the connection becomes a pipe to the device port's
// service, and connect returns true once that is over.
func (h *Host) connect(mc *muxConn, tag uint32, req muxRequest) bool {
	h.mu.Lock()
	var a *attachment
	for _, at := range h.attached {
		if at.id == req.DeviceID {
			a = at
		}
	}
	if a == nil {
		h.mu.Unlock()
		_ = writeMuxMessage(mc.c, tag, muxResult{MessageType: "Result", Number: resultBadDevice})
		return false
	}
	serve, release, ok := a.dev.connect(req.Port, mc.c)
	if ok {
		mc.dev = a.dev
	}
	h.mu.Unlock()
	if !ok {
		_ = writeMuxMessage(mc.c, tag, muxResult{MessageType: "Result", Number: resultConnRefused})
		return false
	}
	defer release()
	if writeMuxMessage(mc.c, tag, muxResult{MessageType: "Result", Number: resultOK}) != nil {
		return true
	}
	serve(h.ctx, mc.c, h.log)
	return true
}
