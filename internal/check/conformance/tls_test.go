package main

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
)

func TestCertificateVerifiesForAccountHosts(t *testing.T) {
	files, err := writeTLS(t.TempDir(), certificateNames)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		t.Fatal(err)
	}
	leafCert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(files.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	for host, ok := range map[string]bool{
		"acct.blob.core.windows.net":           true,
		"acct-secondary.file.core.windows.net": true,
		"acct.table.cosmos.azure.com":          true,
		"acct.dfs.core.windows.net":            true,
		"example.com":                          false,
	} {
		_, err := leafCert.Verify(x509.VerifyOptions{DNSName: host, Roots: roots})
		if (err == nil) != ok {
			t.Errorf("%s: verify error %v, want success %v", host, err, ok)
		}
	}
}
