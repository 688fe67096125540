package iossim

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"time"
)

// handshakeTimeout bounds a TLS handshake, so that a silent peer cannot hold a service.
const handshakeTimeout = 10 * time.Second

// deviceTLS makes c the device side of a TLS session with a paired host, as lockdown does after
// StartSession and a service after StartService with EnableServiceSSL: the device presents its
// certificate from the pairing and requires the host's certificate from the same pairing.
// go-ios's client skips verifying the device, so any TLS version and key type it negotiates
// works; the device checks the host by comparing certificates, as a CA check would refuse the
// SHA-1 certificates go-ios's own Pair makes.
func deviceTLS(ctx context.Context, c net.Conn, p *hostPairing) (*tls.Conn, error) {
	conf := &tls.Config{
		Certificates: []tls.Certificate{p.device},
		ClientAuth:   tls.RequireAnyClientCert,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || !bytes.Equal(raw[0], p.hostCert) {
				return errors.New("the host's certificate is not the one in its pair record")
			}
			return nil
		},
	}
	tc := tls.Server(c, conf)
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, fmt.Errorf("TLS handshake as the device: %w (does the host use the pair record usbmuxd gave it?)", err)
	}
	return tc, nil
}
