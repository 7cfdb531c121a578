package pgextent

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkOpenReadClose measures serving a small extent whole: Open
// (registering the reader), one ReadAt, Close.
func BenchmarkOpenReadClose(b *testing.B) {
	e, _ := openTest(b, 0)
	ctx := context.Background()
	info, err := e.Write(ctx, bytes.NewReader(make([]byte, 4096)), -1)
	if err != nil {
		b.Fatal(err)
	}
	p := make([]byte, 4096)
	for b.Loop() {
		r, err := e.Open(ctx, info.ID)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadAt(p, 0); err != nil {
			b.Fatal(err)
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite16MiB measures streaming a 16 MiB extent in 4 MiB chunks.
func BenchmarkWrite16MiB(b *testing.B) {
	e, _ := openTest(b, 0)
	data := make([]byte, 16<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := e.Write(context.Background(), bytes.NewReader(data), -1); err != nil {
			b.Fatal(err)
		}
	}
}
