package dump

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// LoadOptions tune Load.
type LoadOptions struct {
	// Force loads into a target that already holds records or extents; see
	// the package documentation for what happens to them.
	Force bool
}

// ErrNotEmpty is returned by Load, before it writes anything, when the
// target holds data and LoadOptions.Force is not set.
var ErrNotEmpty = errors.New("dump: the target store is not empty")

// A batch of records is committed when it reaches either bound: large
// enough that a load is not dominated by commits, small enough that no
// engine holds a huge transaction.
const (
	batchRecords = 1000
	batchBytes   = 4 << 20
)

// Load reads a stream written by Dump and writes its extents to ext and its
// records to st. It refuses a non-empty target unless opts.Force; the
// package documentation says what a load that fails part way leaves.
func Load(ctx context.Context, st store.Store, ext extent.Engine, r io.Reader, opts LoadOptions) (Stats, error) {
	if !opts.Force {
		if err := checkEmpty(ctx, st, ext); err != nil {
			return Stats{}, err
		}
	}
	l := &loader{ctx: ctx, st: st, ext: ext, fr: newFrameReader(r)}
	err := l.run()
	return l.stats, err
}

// loader is the state of one Load.
type loader struct {
	ctx        context.Context
	st         store.Store
	ext        extent.Engine
	fr         *frameReader
	ids        []string // the target's ID of each label
	refs       []ref
	batch      []kv
	batchBytes int
	stats      Stats
}

type kv struct{ key, value []byte }

func (l *loader) run() error {
	if err := l.readHeader(); err != nil {
		return err
	}
	for {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		typ, _, err := l.fr.next()
		if errors.Is(err, io.EOF) {
			return corrupt("stream ends without its end frame")
		}
		if err != nil {
			return err
		}
		switch typ {
		case frameExtent:
			err = l.loadExtent()
		case frameRecord:
			err = l.loadRecord()
		case frameEnd:
			return l.finish()
		default:
			err = corrupt("unknown frame type 0x%02x", typ)
		}
		if err != nil {
			return err
		}
	}
}

func (l *loader) readHeader() error {
	typ, _, err := l.fr.next()
	if err != nil {
		return truncated(err)
	}
	if typ != frameHeader {
		return corrupt("not a Lazuli dump (no header frame)")
	}
	body, err := l.fr.body()
	if err != nil {
		return err
	}
	rest, ok := bytes.CutPrefix(body, []byte(magic))
	if !ok {
		return corrupt("not a Lazuli dump (bad magic)")
	}
	v, n := binary.Uvarint(rest)
	if n <= 0 || n != len(rest) {
		return corrupt("malformed header")
	}
	if v != formatVersion {
		return fmt.Errorf("dump: stream has format version %d; this build reads version %d", v, formatVersion)
	}
	return nil
}

// loadExtent writes the extent the current frame holds and remembers the
// ID the target gave it.
func (l *loader) loadExtent() error {
	size, err := binary.ReadUvarint(bodyBytes{l.fr})
	if err != nil {
		return truncated(err)
	}
	if size != l.fr.remain {
		return corrupt("extent frame of %d bytes announces %d bytes of content", l.fr.remain, size)
	}
	info, err := l.ext.Write(l.ctx, l.fr, int64(size))
	if err != nil {
		return fmt.Errorf("dump: writing extent %d: %w", len(l.ids), err)
	}
	if err := l.fr.finish(); err != nil {
		return err
	}
	if uint64(info.Size) != size {
		return fmt.Errorf("dump: extent %d: the target stored %d of its %d bytes", len(l.ids), info.Size, size)
	}
	if !isID([]byte(info.ID)) {
		return fmt.Errorf("dump: the target engine named an extent %q, not %d lower-case hexadecimal digits: records cannot be rewritten to it", info.ID, idLen)
	}
	l.ids = append(l.ids, info.ID)
	l.stats.Extents++
	l.stats.ExtentBytes += info.Size
	return nil
}

// bodyBytes reads a frame body's varint prefix byte by byte.
type bodyBytes struct{ fr *frameReader }

func (b bodyBytes) ReadByte() (byte, error) {
	var c [1]byte
	_, err := io.ReadFull(b.fr, c[:])
	return c[0], err
}

// loadRecord queues the current frame's record, with each labelled
// reference replaced by the target's extent ID.
func (l *loader) loadRecord() error {
	body, err := l.fr.body()
	if err != nil {
		return err
	}
	rec, err := parseRecord(body, uint64(len(l.ids)), l.refs)
	if err != nil {
		return err
	}
	l.refs = rec.refs
	// One allocation per record: the store owns both slices after Put.
	buf := make([]byte, len(rec.key)+len(rec.value))
	copy(buf, rec.key)
	copy(buf[len(rec.key):], rec.value)
	for _, r := range rec.refs {
		copy(buf[r.pos:r.pos+idLen], l.ids[r.label])
	}
	l.batch = append(l.batch, kv{key: buf[:len(rec.key):len(rec.key)], value: buf[len(rec.key):]})
	l.batchBytes += len(buf)
	l.stats.Records++
	if len(l.batch) >= batchRecords || l.batchBytes >= batchBytes {
		return l.flush()
	}
	return nil
}

// flush commits the queued records in one Update. The closure only Puts
// slices prepared beforehand, so running it again on a conflict is safe.
func (l *loader) flush() error {
	if len(l.batch) == 0 {
		return nil
	}
	batch := l.batch
	err := l.st.Update(l.ctx, func(tx store.Tx) error {
		for _, r := range batch {
			if err := tx.Put(r.key, r.value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dump: writing records: %w", err)
	}
	clear(l.batch)
	l.batch, l.batchBytes = l.batch[:0], 0
	return nil
}

// finish checks the end frame's counts against what was read, commits the
// last batch and makes sure nothing follows.
func (l *loader) finish() error {
	body, err := l.fr.body()
	if err != nil {
		return err
	}
	d := decoder{b: body}
	extents, records, extentBytes := d.uvarint(), d.uvarint(), d.uvarint()
	if d.bad || len(d.b) != 0 {
		return corrupt("malformed end frame")
	}
	if extents != uint64(l.stats.Extents) || records != uint64(l.stats.Records) || extentBytes != uint64(l.stats.ExtentBytes) {
		return corrupt("end frame counts %d extents (%d bytes) and %d records, the stream held %d (%d bytes) and %d",
			extents, extentBytes, records, l.stats.Extents, l.stats.ExtentBytes, l.stats.Records)
	}
	if _, _, err := l.fr.next(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return corrupt("data after the end frame")
	}
	return l.flush()
}

// errFound stops a listing at its first extent.
var errFound = errors.New("found")

// checkEmpty returns ErrNotEmpty when st holds a record outside SpaceMeta or
// ext holds an extent.
func checkEmpty(ctx context.Context, st store.Store, ext extent.Engine) error {
	found := false
	err := st.View(ctx, func(tx store.Tx) error {
		found = false
		for _, r := range [][2][]byte{{{0x00}, {byte(store.SpaceMeta)}}, {{byte(store.SpaceMeta) + 1}, nil}} {
			err := tx.Scan(r[0], r[1], store.ScanOptions{Limit: 1}, func(_, _ []byte) bool {
				found = true
				return false
			})
			if err != nil || found {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dump: reading the target store: %w", err)
	}
	if found {
		return fmt.Errorf("%w: it holds records (load with --force to add to them)", ErrNotEmpty)
	}
	err = ext.List(ctx, func(string, float64) error { return errFound })
	switch {
	case errors.Is(err, errFound):
		return fmt.Errorf("%w: its extent engine holds extents (load with --force to add to them)", ErrNotEmpty)
	case err != nil:
		return fmt.Errorf("dump: listing the target's extents: %w", err)
	}
	return nil
}
