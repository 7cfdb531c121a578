// Package testcert makes the self-signed certificates that tests serve
// HTTPS with: one P-256 key and certificate for 127.0.0.1 and localhost,
// valid from an hour ago for a day, marked as its own authority so that a
// client can trust it directly (Go's x509.CertPool, Node's
// NODE_EXTRA_CA_CERTS). Nothing here is used by the server itself.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Cert is a certificate with its private key.
type Cert struct {
	Key  *ecdsa.PrivateKey
	Leaf *x509.Certificate
}

// New makes a certificate named commonName for 127.0.0.1 and localhost.
func New(commonName string) (*Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &Cert{Key: key, Leaf: leaf}, nil
}

// ForTest is New for a test, which fails if the certificate cannot be made.
func ForTest(t testing.TB) *Cert {
	t.Helper()
	c, err := New("lazuli " + t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Pool is a certificate pool that trusts only c.
func (c *Cert) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(c.Leaf)
	return pool
}

// TLS is c as a server certificate for tls.Config.
func (c *Cert) TLS() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{c.Leaf.Raw}, PrivateKey: c.Key, Leaf: c.Leaf}
}

// WritePEM writes c to dir as cert.pem and key.pem (the forms --cert and
// --key take) and returns their paths.
func (c *Cert) WritePEM(dir string) (certPath, keyPath string, err error) {
	keyDER, err := x509.MarshalECPrivateKey(c.Key)
	if err != nil {
		return "", "", err
	}
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Leaf.Raw}), 0o600); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", err
	}
	return certPath, keyPath, nil
}

// WritePEMForTest is WritePEM into a temporary folder of t.
func (c *Cert) WritePEMForTest(t testing.TB) (certPath, keyPath string) {
	t.Helper()
	certPath, keyPath, err := c.WritePEM(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return certPath, keyPath
}
