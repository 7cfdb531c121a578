package quickquery

import (
	"bytes"
	"crypto/rand"
	"io"
)

// avroSchema is the schema of Query Blob Contents' response: a union of
// four records. Clients read it from the file header and dispatch on the
// record names, so the names and field order are the service's own.
const avroSchema = `[` +
	`{"type":"record","name":"com.microsoft.azure.storage.queryBlobContents.resultData","fields":[{"name":"data","type":"bytes"}]},` +
	`{"type":"record","name":"com.microsoft.azure.storage.queryBlobContents.error","fields":[{"name":"fatal","type":"boolean"},{"name":"name","type":"string"},{"name":"description","type":"string"},{"name":"position","type":"long"}]},` +
	`{"type":"record","name":"com.microsoft.azure.storage.queryBlobContents.progress","fields":[{"name":"bytesScanned","type":"long"},{"name":"totalBytes","type":"long"}]},` +
	`{"type":"record","name":"com.microsoft.azure.storage.queryBlobContents.end","fields":[{"name":"totalBytes","type":"long"}]}` +
	`]`

// The union branches of avroSchema.
const (
	avroResultData = iota
	avroError
	avroProgress
	avroEnd
)

// AvroSink writes the records of a query as an Avro object container file
// (codec null), one block per record, so that each reaches the client as
// soon as it is produced.
type AvroSink struct {
	w      io.Writer
	sync   [16]byte
	header bool
	block  bytes.Buffer
	datum  bytes.Buffer
}

// NewAvroSink writes to w; the header goes out with the first record.
func NewAvroSink(w io.Writer) *AvroSink {
	s := &AvroSink{w: w}
	_, _ = rand.Read(s.sync[:])
	return s
}

// Data writes a resultData record.
func (s *AvroSink) Data(p []byte) error {
	s.datum.Reset()
	putLong(&s.datum, avroResultData)
	putBytes(&s.datum, p)
	return s.writeDatum()
}

// Progress writes a progress record.
func (s *AvroSink) Progress(scanned, total int64) error {
	s.datum.Reset()
	putLong(&s.datum, avroProgress)
	putLong(&s.datum, scanned)
	putLong(&s.datum, total)
	return s.writeDatum()
}

// Error writes an error record.
func (s *AvroSink) Error(fatal bool, name, description string, position int64) error {
	s.datum.Reset()
	putLong(&s.datum, avroError)
	if fatal {
		s.datum.WriteByte(1)
	} else {
		s.datum.WriteByte(0)
	}
	putBytes(&s.datum, []byte(name))
	putBytes(&s.datum, []byte(description))
	putLong(&s.datum, position)
	return s.writeDatum()
}

// End writes the end record.
func (s *AvroSink) End(total int64) error {
	s.datum.Reset()
	putLong(&s.datum, avroEnd)
	putLong(&s.datum, total)
	return s.writeDatum()
}

func (s *AvroSink) writeDatum() error {
	s.block.Reset()
	if !s.header {
		s.header = true
		s.block.WriteString("Obj\x01")
		putLong(&s.block, 2) // metadata map: one block of two entries
		putBytes(&s.block, []byte("avro.schema"))
		putBytes(&s.block, []byte(avroSchema))
		putBytes(&s.block, []byte("avro.codec"))
		putBytes(&s.block, []byte("null"))
		putLong(&s.block, 0)
		s.block.Write(s.sync[:])
	}
	putLong(&s.block, 1)
	putLong(&s.block, int64(s.datum.Len()))
	s.block.Write(s.datum.Bytes())
	s.block.Write(s.sync[:])
	_, err := s.w.Write(s.block.Bytes())
	return err
}

// putLong writes an Avro long: zig-zag, then base-128 varint.
func putLong(b *bytes.Buffer, v int64) {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b.WriteByte(byte(u) | 0x80)
		u >>= 7
	}
	b.WriteByte(byte(u))
}

// putBytes writes Avro bytes or string: the length, then the bytes.
func putBytes(b *bytes.Buffer, p []byte) {
	putLong(b, int64(len(p)))
	b.Write(p)
}
