package test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
)

// NATS over TLS with credentials: a CA made here signs the server's certificate; a node and a
// gateway connect with --nats-tls-ca and their roles' contexts, and a client that does not
// trust the CA is refused.
func TestNATSWithTLS(t *testing.T) {
	dir := t.TempDir()
	ca := writeTestPKI(t, dir)
	secrets, err := broker.OpenSecrets(filepath.Join(dir, "nats"))
	require.NoError(t, err)
	users, err := broker.FarmUsers([]string{"t1"}, secrets.Password)
	require.NoError(t, err)
	var su []embedded.User
	for _, u := range users {
		p, err := u.Permissions()
		require.NoError(t, err)
		su = append(su, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p)})
	}
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: filepath.Join(dir, "js"), Users: su,
		TLS: &embedded.TLSOptions{Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server-key.pem")}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	url := "tls://" + ns.Addr().String()
	// The contexts name no CA: the flag gives it.
	ctxs, err := secrets.WriteContexts(url, "", users)
	require.NoError(t, err)

	_, out, ok := startCorralUntil(t, "node ready", "node", "--node-id", "t1", "--nats-context", ctxs["node-t1"], "--nats-tls-ca", ca,
		"--sim", "1", "--adb", "off", "--metrics", "", "--log-level", "info")
	require.True(t, ok, "the node did not start over TLS:\n%s", out)
	_, out, ok = startCorralUntil(t, "gateway serving", "gateway", "--nats-context", ctxs["gateway"], "--nats-tls-ca", ca,
		"--http", "127.0.0.1:0", "--log-level", "info")
	require.True(t, ok, "the gateway did not start over TLS:\n%s", out)
	mcpURL := regexp.MustCompile(`mcp=(http://\S+/mcp)`).FindStringSubmatch(out)
	require.NotNil(t, mcpURL, out)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		out, err := runCorral(t, "devices", "--gateway", mcpURL[1])
		return err == nil && regexp.MustCompile(`sim-t1-01\s.*online`).MatchString(out)
	}, "the node's device listed through the gateway")

	out, err = runCorral(t, "devices", "--nats-context", ctxs["admin"], "--nats-tls-ca", ca)
	require.NoError(t, err, out)
	assert.Contains(t, out, "sim-t1-01")
	out, err = runCorral(t, "devices", "--nats-context", ctxs["admin"])
	require.Error(t, err, "a client that does not trust the CA connected:\n%s", out)
	assert.Contains(t, out, "certificate")
}

// writeTestPKI writes a CA (ca.pem) and a server certificate for 127.0.0.1 signed by it
// (server.pem, server-key.pem) into dir, and returns the CA's path.
func writeTestPKI(t *testing.T, dir string) string {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		return k
	}
	write := func(name, typ string, der []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
	}
	caKey, srvKey := key(), key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "corral test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "nats"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames: []string{"localhost"}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	require.NoError(t, err)
	write("ca.pem", "CERTIFICATE", caDER)
	write("server.pem", "CERTIFICATE", srvDER)
	write("server-key.pem", "EC PRIVATE KEY", keyDER)
	return filepath.Join(dir, "ca.pem")
}
