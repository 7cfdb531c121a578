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

// Stats counts what Dump or Load copied.
type Stats struct {
	Records     int64 // store records, reference counts included
	Extents     int64
	ExtentBytes int64
}

// dataRanges are the key ranges a dump copies in key order: every space but
// SpaceMeta (the engines' own) and the two extent spaces, whose reference
// counts are written after the records, in label order, and whose
// collection queue is not copied.
var dataRanges = [][2][]byte{
	{{0x00}, {byte(store.SpaceMeta)}},
	{{byte(store.SpaceMeta) + 1}, {byte(store.SpaceExtentRef)}},
	{{byte(store.SpaceExtentGC) + 1}, nil},
}

// ctxEvery is how many records a scan visits between context checks.
const ctxEvery = 1024

// Dump writes everything st and ext hold, as of one snapshot, to w in the
// format the package documentation describes. Nothing is written to st.
func Dump(ctx context.Context, st store.Store, ext extent.Engine, w io.Writer) (Stats, error) {
	d := &dumper{ctx: ctx, ext: ext, fw: newFrameWriter(w), extents: newExtentSet()}
	if err := st.View(ctx, d.run); err != nil {
		return d.stats, err
	}
	return d.stats, d.fw.flush()
}

// dumper is the state of one Dump.
type dumper struct {
	ctx     context.Context
	ext     extent.Engine
	fw      *frameWriter
	extents *extentSet
	stats   Stats
	refs    []ref
	body    []byte
}

// run makes the passes of a dump inside its one View: reference counts,
// labelling, then the stream itself.
func (d *dumper) run(tx store.Tx) error {
	steps := []func(store.Tx) error{d.readRefCounts, d.labelExtents, d.writeHeader,
		d.writeExtents, d.writeRecords, d.writeRefCounts, d.writeEnd}
	for _, step := range steps {
		if err := step(tx); err != nil {
			return err
		}
	}
	return nil
}

// readRefCounts loads the ID and count of every referenced extent.
func (d *dumper) readRefCounts(tx store.Tx) error {
	lo := []byte{byte(store.SpaceExtentRef)}
	return scan(d.ctx, tx, lo, store.PrefixEnd(lo), func(key, value []byte) error {
		kr := store.ReadKey(key, store.SpaceExtentRef)
		id := kr.Str()
		if err := kr.Err(); err != nil {
			return fmt.Errorf("dump: reference count record %x: %w", key, err)
		}
		return d.extents.add(id, bytes.Clone(value))
	})
}

// labelExtents numbers the extents in the order the records first name
// them, which is the same in every store holding the same data.
func (d *dumper) labelExtents(tx store.Tx) error {
	err := scanData(d.ctx, tx, func(key, value []byte) error {
		d.refs = d.extents.findAll(d.refs, key, value)
		return nil
	})
	d.extents.labelRest()
	return err
}

func (d *dumper) writeHeader(store.Tx) error {
	body := binary.AppendUvarint([]byte(magic), formatVersion)
	return d.fw.frame(frameHeader, body)
}

// writeExtents copies every referenced extent, in label order.
func (d *dumper) writeExtents(store.Tx) error {
	for _, e := range d.extents.labelled {
		if err := d.ctx.Err(); err != nil {
			return err
		}
		if err := d.writeExtent(e.id); err != nil {
			return err
		}
	}
	return nil
}

func (d *dumper) writeExtent(id string) error {
	r, err := d.ext.Open(d.ctx, id)
	if errors.Is(err, extent.ErrNotFound) {
		// Two causes give a missing extent: content kept elsewhere than
		// where this dump looks (a server run with --extents), or the
		// collector freeing it after the dump's snapshot.
		return fmt.Errorf("dump: extent %s is not where the dump looked: if the server keeps its content elsewhere "+
			"(lazuli --extents), dump with the same --extents; otherwise it was collected while the dump ran (freed "+
			"after the dump's snapshot, the collector's grace period passed): dump again, or dump a stopped server", id)
	}
	if err != nil {
		return fmt.Errorf("dump: opening extent %s: %w", id, err)
	}
	defer r.Close()
	size := r.Size()
	var head [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(head[:], uint64(size))
	if err := d.fw.begin(frameExtent, uint64(n)+uint64(size)); err != nil {
		return err
	}
	if err := d.fw.write(head[:n]); err != nil {
		return err
	}
	copied, err := io.Copy(d.fw, io.NewSectionReader(r, 0, size))
	if err == nil && copied != size {
		err = fmt.Errorf("extent is %d bytes, %d read", size, copied)
	}
	if err != nil {
		return fmt.Errorf("dump: reading extent %s: %w", id, err)
	}
	d.stats.Extents++
	d.stats.ExtentBytes += size
	return d.fw.end()
}

// writeRecords writes every copied record but the reference counts, in key
// order.
func (d *dumper) writeRecords(tx store.Tx) error {
	labels := len(d.extents.labelled)
	err := scanData(d.ctx, tx, d.writeRecord)
	if err == nil && len(d.extents.labelled) != labels {
		err = errors.New("dump: the records changed between two passes over one snapshot")
	}
	return err
}

func (d *dumper) writeRecord(key, value []byte) error {
	d.refs = d.extents.findAll(d.refs, key, value)
	d.body = appendRecord(d.body[:0], key, value, d.refs)
	d.stats.Records++
	return d.fw.frame(frameRecord, d.body)
}

// writeRefCounts writes the reference count of every copied extent, in
// label order, so that they too are the same in every store.
func (d *dumper) writeRefCounts(store.Tx) error {
	for _, e := range d.extents.labelled {
		key := store.NewKey(store.SpaceExtentRef).Str(e.id)
		if err := d.writeRecord(key, e.ref); err != nil {
			return err
		}
	}
	return nil
}

func (d *dumper) writeEnd(store.Tx) error {
	body := binary.AppendUvarint(nil, uint64(d.stats.Extents))
	body = binary.AppendUvarint(body, uint64(d.stats.Records))
	body = binary.AppendUvarint(body, uint64(d.stats.ExtentBytes))
	return d.fw.frame(frameEnd, body)
}

// scanData visits every record of dataRanges in key order.
func scanData(ctx context.Context, tx store.Tx, fn func(key, value []byte) error) error {
	for _, r := range dataRanges {
		if err := scan(ctx, tx, r[0], r[1], fn); err != nil {
			return err
		}
	}
	return nil
}

// scan visits [lo, hi) in key order, stopping at fn's first error and
// checking ctx now and then.
func scan(ctx context.Context, tx store.Tx, lo, hi []byte, fn func(key, value []byte) error) error {
	var err error
	n := 0
	scanErr := tx.Scan(lo, hi, store.ScanOptions{}, func(key, value []byte) bool {
		if n++; n%ctxEvery == 0 {
			if err = ctx.Err(); err != nil {
				return false
			}
		}
		err = fn(key, value)
		return err == nil
	})
	if scanErr != nil {
		return scanErr
	}
	return err
}
