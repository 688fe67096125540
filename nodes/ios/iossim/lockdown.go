package iossim

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/google/uuid"
)

// lockdownConn is one connection to lockdownd and its session.
type lockdownConn struct {
	d       *Device
	log     *slog.Logger
	raw     *pipeConn
	conn    net.Conn  // raw, or tls while TLS is on
	tls     *tls.Conn // nil in plaintext
	session *hostPairing
}

// reply is a lockdown answer; every answer names its Request, as lockdownd's do.
type reply map[string]any

// serveLockdown is lockdownd on one connection: a request, an answer, until the host leaves.
func (d *Device) serveLockdown(ctx context.Context, c *pipeConn, log *slog.Logger) {
	l := &lockdownConn{d: d, log: log.With("udid", d.udid, "service", "lockdown"), raw: c, conn: c}
	for {
		payload, err := readFrame(l.conn)
		if err != nil {
			if l.dropTLS(err) {
				continue
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				l.log.Debug("lockdown connection ends", "err", err)
			}
			return
		}
		req, err := decodeLockdownRequest(payload)
		if err != nil {
			l.log.Debug("closing lockdown connection on a bad request", "err", err)
			return
		}
		ans, after := l.handle(req)
		if err := writeFrame(l.conn, ans); err != nil {
			return
		}
		if after != nil && !after(ctx) {
			return
		}
	}
}

// dropTLS goes back to plaintext when the host closes TLS after StopSession, as lockdownd
// does (Apple's tools then start a new session on the same connection).
func (l *lockdownConn) dropTLS(err error) bool {
	if l.tls == nil || l.session != nil || !errors.Is(err, io.EOF) {
		return false
	}
	_ = l.tls.CloseWrite()
	_ = l.raw.SetWriteDeadline(time.Time{}) // CloseWrite leaves an expired deadline
	l.conn, l.tls = l.raw, nil
	return true
}

// handle answers one request. after, if set, runs once the answer is sent (TLS starts after
// StartSession's answer); false from it closes the connection.
func (l *lockdownConn) handle(req lockdownRequest) (ans reply, after func(context.Context) bool) {
	ans = reply{"Request": req.Request}
	fail := func(e string) (reply, func(context.Context) bool) {
		ans["Error"] = e
		return ans, nil
	}
	d := l.d
	switch req.Request {
	case "QueryType":
		ans["Type"] = "com.apple.mobile.lockdown"
	case "GetValue":
		setKeys(ans, req)
		v, ok := d.getValue(req.Domain, req.Key, l.session != nil)
		if !ok {
			return fail("MissingValue")
		}
		ans["Value"] = v
	case "SetValue":
		setKeys(ans, req)
		switch {
		case l.session == nil:
			return fail("SessionInactive")
		case req.Key == "":
			return fail("MissingKey")
		case !req.HasValue:
			return fail("MissingValue")
		}
		if e := d.setValue(req.Domain, req.Key, req.Value, req.size); e != "" {
			return fail(e)
		}
	case "StartSession":
		return l.startSession(req)
	case "StopSession":
		if l.session == nil {
			return fail("SessionInactive")
		}
		l.session = nil
	case "StartService":
		return l.startService(req)
	case "ValidatePair":
		if d.pairing(hostIDOf(req)) == nil {
			return fail("InvalidHostID")
		}
	case "Pair":
		if !d.isTrusted() {
			return fail("PairingDialogResponsePending") // the dialog is up on the phone
		}
		if req.PairRecord == nil {
			return fail("MissingPairRecord")
		}
		p, err := hostPairingFrom(req.PairRecord, d.key)
		if err != nil {
			l.log.Debug("refusing a pair record", "err", err)
			return fail("InvalidPairRecord")
		}
		if e, ok := d.pair(p); !ok {
			return fail(e)
		}
		ans["EscrowBag"] = p.escrowBag
	case "Unpair":
		if !d.unpair(hostIDOf(req)) {
			return fail("InvalidHostID")
		}
	case "Goodbye":
		ans["Result"] = "Success"
		return ans, func(context.Context) bool { return false }
	default:
		return fail("InvalidRequest")
	}
	return ans, nil
}

// startSession checks the host against the device's pairings and answers with TLS on.
func (l *lockdownConn) startSession(req lockdownRequest) (reply, func(context.Context) bool) {
	ans := reply{"Request": req.Request}
	p := l.d.pairing(req.HostID)
	switch {
	case l.session != nil:
		ans["Error"] = "SessionActive"
	case req.HostID == "":
		ans["Error"] = "MissingHostID"
	case p == nil, p.systemBUID != "" && req.SystemBUID != "" && p.systemBUID != req.SystemBUID:
		ans["Error"] = "InvalidHostID" // what an untrusted phone says: the host is not paired
	}
	if ans["Error"] != nil {
		return ans, nil
	}
	l.session = p
	ans["SessionID"] = strings.ToUpper(uuid.NewString())
	ans["EnableSessionSSL"] = l.tls == nil
	if l.tls != nil { // still encrypted from a stopped session: carry on in it
		return ans, nil
	}
	return ans, func(ctx context.Context) bool {
		tc, err := deviceTLS(ctx, l.raw, p)
		if err != nil {
			l.log.Debug("lockdown session TLS failed", "err", err)
			return false
		}
		l.conn, l.tls = tc, tc
		return true
	}
}

// startService opens a one-shot port for a service, reached with the session's pairing.
func (l *lockdownConn) startService(req lockdownRequest) (reply, func(context.Context) bool) {
	ans := reply{"Request": req.Request, "Service": req.Service}
	if l.session == nil {
		ans["Error"] = "SessionInactive"
		return ans, nil
	}
	inner := l.d.serviceNamed(req.Service)
	if inner == nil {
		ans["Error"] = "InvalidService"
		return ans, nil
	}
	port, ok := l.d.openServicePort(tlsService(l.session, inner))
	if !ok {
		ans["Error"] = "ServiceLimit"
		return ans, nil
	}
	ans["Port"] = port
	ans["EnableServiceSSL"] = true
	return ans, nil
}

// setKeys echoes Key and Domain, as lockdownd does.
func setKeys(ans reply, req lockdownRequest) {
	if req.Key != "" {
		ans["Key"] = req.Key
	}
	if req.Domain != "" {
		ans["Domain"] = req.Domain
	}
}

// hostIDOf is the HostID of a request's PairRecord (ValidatePair, Unpair), or its own.
func hostIDOf(req lockdownRequest) string {
	if id := dictString(req.PairRecord, "HostID"); id != "" {
		return id
	}
	return req.HostID
}

// plainService serves a service's protocol once TLS is up.
type plainService func(ctx context.Context, c net.Conn, log *slog.Logger)

// tlsService is a service port reached with EnableServiceSSL: TLS as the device with the
// pairing of the session that started it, then the service.
func tlsService(p *hostPairing, inner plainService) service {
	return func(ctx context.Context, c *pipeConn, log *slog.Logger) {
		tc, err := deviceTLS(ctx, c, p)
		if err != nil {
			log.Debug("service TLS failed", "err", err)
			return
		}
		inner(ctx, tc, log)
	}
}

// serviceNamed is the service StartService can start, or nil.
func (d *Device) serviceNamed(name string) plainService {
	switch name {
	case afcServiceName:
		return d.serveAFC
	case installProxyServiceName:
		return d.serveInstallProxy
	}
	return nil
}
