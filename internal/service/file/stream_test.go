package file_test

import (
	"bytes"
	"io"
)

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }

// streamOf wraps b as the ReadSeekCloser upload calls take.
func streamOf(b []byte) io.ReadSeekCloser { return nopCloser{bytes.NewReader(b)} }
