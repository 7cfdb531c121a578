// Command testcert writes the TLS material the JavaScript suite starts its
// HTTPS Lazuli with: a self-signed certificate for 127.0.0.1 and localhost
// (cert.pem) and its key (key.pem), into the directory it is given. Node
// has no API that makes certificates, and openssl may be absent.
package main

import (
	"fmt"
	"os"

	"github.com/lazuli-storage/lazuli/internal/check/testcert"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testcert DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "testcert:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	cert, err := testcert.New("lazuli js tests")
	if err != nil {
		return err
	}
	_, _, err = cert.WritePEM(dir)
	return err
}
