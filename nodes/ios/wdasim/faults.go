package wdasim

import (
	"io"
	"net/http"
)

// Fault is a way the server misbehaves, for tests of a client's error handling.
type Fault int32

const (
	FaultNone     Fault = iota
	FaultGarbage        // every answer is HTTP 200 with a body that is not JSON
	FaultHang           // no answer until the request's context ends (the client gives up)
	FaultError500       // every answer is HTTP 500 "unknown error", as when XCTest crashes
)

// SetFault makes every later request misbehave as f says, until SetFault(FaultNone).
func (s *Server) SetFault(f Fault) { s.fault.Store(int32(f)) }

// misbehave answers r as the fault set says, and reports whether it did.
func (s *Server) misbehave(w http.ResponseWriter, r *http.Request) bool {
	switch Fault(s.fault.Load()) {
	case FaultGarbage:
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body>\x00\xff not WebDriverAgent {\"value\":")
	case FaultHang:
		// Read the body first: net/http notices a client hanging up (and ends r's context) only
		// once the body has been read.
		_, _ = io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, maxBody))
		<-r.Context().Done()
	case FaultError500:
		s.reply(w, errUnknown("injected fault: XCTest crashed (wdasim FaultError500)"))
	default:
		return false
	}
	return true
}
