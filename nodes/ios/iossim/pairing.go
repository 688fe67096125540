package iossim

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/google/uuid"
)

// rsaBits is the key size of real pair records (and of go-ios's Pair).
const rsaBits = 2048

// pairRecord is what usbmuxd keeps for a device and hands out with ReadPairRecord, with
// usbmuxd's keys: PEM certificates and keys, the host's identity and the escrow bag.
type pairRecord struct {
	DeviceCertificate []byte
	EscrowBag         []byte
	HostCertificate   []byte
	HostID            string
	HostPrivateKey    []byte
	RootCertificate   []byte
	RootPrivateKey    []byte
	SystemBUID        string
	WiFiMACAddress    string
}

// hostPairing is a host as the device remembers it after pairing: who it is, the certificate
// it must present in TLS, and the certificate the device presents to it.
type hostPairing struct {
	hostID     string
	systemBUID string
	hostCert   []byte // DER
	device     tls.Certificate
	escrowBag  []byte
}

// newPairing makes a complete pairing for a device key, as a host's Pair does: a root CA, a host
// certificate and a device certificate for the device's public key, both signed by the root.
func newPairing(devKey *rsa.PrivateKey, systemBUID, wifiMAC string) (pairRecord, *hostPairing, error) {
	rootKey, err := rsa.GenerateKey(rand.Reader, rsaBits)
	if err != nil {
		return pairRecord{}, nil, fmt.Errorf("making the root key: %w", err)
	}
	hostKey, err := rsa.GenerateKey(rand.Reader, rsaBits)
	if err != nil {
		return pairRecord{}, nil, fmt.Errorf("making the host key: %w", err)
	}
	now := time.Now().Add(-time.Hour)
	root := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Corral simulated pairing root"},
		NotBefore:             now,
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	rootDER, err := x509.CreateCertificate(rand.Reader, root, root, &rootKey.PublicKey, rootKey)
	if err != nil {
		return pairRecord{}, nil, fmt.Errorf("making the root certificate: %w", err)
	}
	if root, err = x509.ParseCertificate(rootDER); err != nil {
		return pairRecord{}, nil, fmt.Errorf("reading back the root certificate: %w", err)
	}
	leaf := func(serial int64, cn string, pub *rsa.PublicKey) ([]byte, error) {
		tmpl := &x509.Certificate{
			SerialNumber:          big.NewInt(serial),
			Subject:               pkix.Name{CommonName: cn},
			NotBefore:             now,
			NotAfter:              now.AddDate(10, 0, 0),
			KeyUsage:              x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature,
			BasicConstraintsValid: true,
		}
		return x509.CreateCertificate(rand.Reader, tmpl, root, pub, rootKey)
	}
	hostDER, err := leaf(2, "Corral simulated host", &hostKey.PublicKey)
	if err != nil {
		return pairRecord{}, nil, fmt.Errorf("making the host certificate: %w", err)
	}
	devDER, err := leaf(3, "Corral simulated device", &devKey.PublicKey)
	if err != nil {
		return pairRecord{}, nil, fmt.Errorf("making the device certificate: %w", err)
	}
	escrow := make([]byte, 32)
	_, _ = rand.Read(escrow)
	rec := pairRecord{
		DeviceCertificate: pemCert(devDER),
		EscrowBag:         escrow,
		HostCertificate:   pemCert(hostDER),
		HostID:            strings.ToUpper(uuid.NewString()),
		HostPrivateKey:    pemKey(hostKey),
		RootCertificate:   pemCert(rootDER),
		RootPrivateKey:    pemKey(rootKey),
		SystemBUID:        systemBUID,
		WiFiMACAddress:    wifiMAC,
	}
	p := &hostPairing{
		hostID:     rec.HostID,
		systemBUID: systemBUID,
		hostCert:   hostDER,
		device:     tls.Certificate{Certificate: [][]byte{devDER}, PrivateKey: devKey},
		escrowBag:  escrow,
	}
	return rec, p, nil
}

// hostPairingFrom reads the PairRecord of a lockdown Pair request: the host's identity and
// certificates, of which the device certificate must be for this device's key.
func hostPairingFrom(m map[string]any, devKey *rsa.PrivateKey) (*hostPairing, error) {
	hostID := dictString(m, "HostID")
	if hostID == "" || len(hostID) > 128 {
		return nil, errors.New("the pair record has no usable HostID")
	}
	hostCert, err := pemCertDER(dictBytes(m, "HostCertificate"))
	if err != nil {
		return nil, fmt.Errorf("HostCertificate: %w", err)
	}
	devDER, err := pemCertDER(dictBytes(m, "DeviceCertificate"))
	if err != nil {
		return nil, fmt.Errorf("DeviceCertificate: %w", err)
	}
	dev, _ := x509.ParseCertificate(devDER)
	if pub, ok := dev.PublicKey.(*rsa.PublicKey); !ok || !pub.Equal(&devKey.PublicKey) {
		return nil, errors.New("DeviceCertificate is not for this device's public key (DevicePublicKey)")
	}
	escrow := make([]byte, 32)
	_, _ = rand.Read(escrow)
	return &hostPairing{
		hostID:     hostID,
		systemBUID: dictString(m, "SystemBUID"),
		hostCert:   hostCert,
		device:     tls.Certificate{Certificate: [][]byte{devDER}, PrivateKey: devKey},
		escrowBag:  escrow,
	}, nil
}

// pemCertDER decodes a PEM certificate and checks that it parses.
func pemCertDER(b []byte) ([]byte, error) {
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("not a PEM certificate")
	}
	if _, err := x509.ParseCertificate(block.Bytes); err != nil {
		return nil, err
	}
	return block.Bytes, nil
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func pemKey(k *rsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// pemPublicKey is the DevicePublicKey lockdown value: PKCS#1, as go-ios's Pair reads it.
func pemPublicKey(k *rsa.PublicKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(k)})
}
