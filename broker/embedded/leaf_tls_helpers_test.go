package embedded_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// leafPKI are the files of a private CA and of a hub's certificate for 127.0.0.1 signed by it.
type leafPKI struct {
	CA, Cert, Key string
}

// writeLeafPKI writes a private CA and a server certificate for 127.0.0.1 (an IP SAN) signed by
// it into dir.
func writeLeafPKI(t *testing.T, dir string) leafPKI {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	caKey, srvKey := key(), key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "corral test leaf CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "hub"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		t.Fatal(err)
	}
	return leafPKI{CA: write("ca.pem", "CERTIFICATE", caDER), Cert: write("hub.pem", "CERTIFICATE", srvDER),
		Key: write("hub-key.pem", "EC PRIVATE KEY", keyDER)}
}

// startPlainHub starts a bare nats-server, as an operator runs a hub, that takes leaf
// connections on a port of its own, over TLS with pki's certificate when pki is not nil (its
// leafnodes block's tls { cert_file, key_file }), and users (none: anyone) as leaf users. It
// returns the hub and its leaf port.
func startPlainHub(t *testing.T, pki *leafPKI, users ...*server.User) (*server.Server, int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	return startHubOn(t, port, pki, users...), port
}

// startPlainHubOn starts a bare nats-server hub that takes leaf connections without TLS on port.
func startPlainHubOn(t *testing.T, port int, users ...*server.User) *server.Server {
	t.Helper()
	return startHubOn(t, port, nil, users...)
}

func startHubOn(t *testing.T, port int, pki *leafPKI, users ...*server.User) *server.Server {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true, ServerName: "hub"}
	opts.LeafNode.Host, opts.LeafNode.Port = "127.0.0.1", port
	opts.LeafNode.Users = users
	if pki != nil {
		cfg, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: pki.Cert, KeyFile: pki.Key})
		if err != nil {
			t.Fatal(err)
		}
		opts.LeafNode.TLSConfig, opts.LeafNode.TLSTimeout = cfg, 2
	}
	hub, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	hub.SetLoggerV2(nil, false, false, false)
	hub.Start()
	if !hub.ReadyForConnections(10 * time.Second) {
		t.Fatal("the hub did not start within 10s")
	}
	t.Cleanup(func() { hub.Shutdown(); hub.WaitForShutdown() })
	return hub
}
