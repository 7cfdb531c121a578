package quickquery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"
)

// Input says how to read the blob: delimited text, JSON or Parquet.
type Input struct {
	JSON    bool
	Parquet bool
	CSV     CSV    // when neither JSON nor Parquet
	Sep     string // JSON record separator
}

// Output says how to write results: delimited text, JSON, or an Arrow
// stream of the given columns.
type Output struct {
	JSON  bool
	CSV   CSV
	Sep   string       // JSON record separator
	Arrow []ArrowField // not empty for Arrow output
}

// Sink receives what a query produces, in order: result data, progress,
// non-fatal and fatal errors, and the end. The Avro writer is the Sink the
// service answers with.
type Sink interface {
	Data(p []byte) error
	Progress(scanned, total int64) error
	Error(fatal bool, name, description string, position int64) error
	End(total int64) error
}

// Tuning of the result stream: data is handed to the sink in pieces of
// about flushSize bytes, and a progress record follows every
// progressInterval bytes scanned.
const (
	flushSize        = 64 << 10
	progressInterval = 4 << 20
)

// Run executes q over the total bytes of in and streams the results to
// sink. Errors in single records are reported to the sink as non-fatal
// and the record skipped; input that does not parse ends the query with a
// fatal error record. The returned error is only a failure to read the
// input or to write to the sink.
func Run(ctx context.Context, q *Query, in io.Reader, total int64, input Input, output Output, sink Sink, now time.Time) error {
	if q.splitSize > 0 && input.JSON {
		return sink.Error(true, "InvalidQuery", "sys.split applies to delimited text only.", 0)
	}
	blob := &readCounter{r: in}
	var src reader
	switch {
	case input.Parquet:
		if len(q.from) > 0 || q.splitSize > 0 {
			return sink.Error(true, "InvalidQuery", "A table path and sys.split apply to text input only.", 0)
		}
		p, err := newParquetReader(blob)
		var parseErr *ParseError
		if errors.As(err, &parseErr) {
			if err := sink.Error(true, "ParseError", parseErr.Msg, 0); err != nil {
				return err
			}
			return sink.End(total)
		}
		if err != nil {
			return err
		}
		src = p
	case input.JSON:
		src = newJSONReader(blob, input.Sep, q.from)
	default:
		if len(q.from) > 0 {
			return sink.Error(true, "InvalidQuery", "A table path applies to JSON input only.", 0)
		}
		src = newCSVReader(blob, input.CSV)
	}
	r := &runner{q: q, src: src, out: newWriter(output), sink: sink, ev: &evaluator{now: now}, total: total}
	if r.out.arrow != nil {
		r.out.arrow.start(&r.buf)
		if err := r.flush(); err != nil {
			return err
		}
	}
	if err := r.finish(r.run(ctx), blob); err != nil {
		return err
	}
	return sink.End(total)
}

// finish reports what a run ended with: a fatal error after the rows
// produced, then the progress record. After a fatal error the service
// counts as scanned the bytes it had read of the blob, all of a small one
// (the recordings replayed in replay_test.go and TestQueryFatalErrorOrder),
// where a run to the end counts the records read.
func (r *runner) finish(err error, blob *readCounter) error {
	scanned := r.src.scanned()
	var fatal *ParseError
	if errors.As(err, &fatal) {
		err, scanned = r.fatal(fatal), blob.n
	}
	if err != nil {
		return err
	}
	if err := r.flush(); err != nil {
		return err
	}
	return r.sink.Progress(scanned, r.total)
}

// readCounter counts the bytes read from the blob.
type readCounter struct {
	r io.Reader
	n int64
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type runner struct {
	q            *Query
	src          reader
	out          *writer
	sink         Sink
	ev           *evaluator
	total        int64
	buf          bytes.Buffer
	emitted      int64
	nextProgress int64
	agg          []accumulator
	headerDone   bool
}

func (r *runner) run(ctx context.Context) error {
	r.nextProgress = progressInterval
	if r.q.aggregated {
		r.agg = make([]accumulator, len(r.q.projections))
	}
	var splitFrom int64
	for r.q.limit < 0 || r.emitted < r.q.limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, at, err := r.src.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if r.q.splitSize > 0 {
			if r.src.scanned()-splitFrom >= r.q.splitSize {
				if err := r.emit(nil, []value{intValue(r.src.scanned())}, nil, at); err != nil {
					return err
				}
				splitFrom = r.src.scanned()
			}
			continue
		}
		if err := r.record(rec, at); err != nil {
			return err
		}
		if err := r.maybeFlush(); err != nil {
			return err
		}
	}
	if r.q.aggregated {
		return r.writeAggregates()
	}
	return nil
}

// record filters and projects one input record, or adds it to the
// aggregates.
func (r *runner) record(rec record, at int64) error {
	if r.q.where != nil {
		v, err := r.ev.eval(r.q.where, rec)
		if err == nil {
			var keep, known bool
			keep, known, err = truth(v)
			if err == nil && (!known || !keep) {
				return nil
			}
		}
		if err != nil {
			return r.recordError(err, at)
		}
	}
	if r.q.aggregated {
		r.emitted++
		for i, p := range r.q.projections {
			if err := r.agg[i].add(r.ev, p.e.(*aggregate), rec); err != nil {
				return r.recordError(err, at)
			}
		}
		return nil
	}
	if r.q.star {
		names, values := rec.all()
		return r.emit(names, values, rec, at)
	}
	names := make([]string, len(r.q.projections))
	values := make([]value, len(r.q.projections))
	for i, p := range r.q.projections {
		v, err := r.ev.eval(p.e, rec)
		if err != nil {
			return r.recordError(err, at)
		}
		names[i], values[i] = p.name, v
	}
	return r.emit(names, values, nil, at)
}

// emit writes one output row. A row whose values the Arrow schema cannot
// hold is reported as a record error and skipped; a row of another width
// than the schema ends the query.
func (r *runner) emit(names []string, values []value, whole record, at int64) error {
	err := r.writeRow(names, values, whole)
	var fatal *ParseError
	if errors.As(err, &fatal) {
		return &ParseError{Position: at, Name: fatal.Name, Msg: fatal.Msg}
	}
	if err != nil {
		return r.recordError(err, at)
	}
	return nil
}

// recordError reports a record the query could not evaluate, which is
// then skipped.
func (r *runner) recordError(err error, at int64) error {
	var re *RecordError
	if !errors.As(err, &re) {
		return err
	}
	if err := r.flush(); err != nil {
		return err
	}
	return r.sink.Error(false, re.Name, re.Description, at)
}

func (r *runner) writeRow(names []string, values []value, whole record) error {
	if r.out.arrow != nil {
		if err := r.out.arrow.add(values); err != nil {
			return err
		}
		r.emitted++
		return nil
	}
	r.emitted++
	if r.out.json {
		if jr, ok := whole.(*jsonRecord); ok {
			r.out.writeJSONValue(&r.buf, jr.v)
			return nil
		}
		r.out.writeJSONObject(&r.buf, names, values)
		return nil
	}
	if r.out.csv.HasHeaders && !r.headerDone {
		r.headerDone = true
		r.write(names)
	}
	texts := make([]string, len(values))
	for i, v := range values {
		texts[i] = v.text()
	}
	r.write(texts)
	return nil
}

func (r *runner) write(fields []string) { r.out.writeCSV(&r.buf, fields) }

func (r *runner) writeAggregates() error {
	names := make([]string, len(r.agg))
	values := make([]value, len(r.agg))
	for i, a := range r.agg {
		names[i], values[i] = r.q.projections[i].name, a.result(r.q.projections[i].e.(*aggregate).fn)
	}
	r.emitted = 0 // the aggregate row is written even when LIMIT was reached
	return r.emit(names, values, nil, r.src.scanned())
}

func (r *runner) maybeFlush() error {
	if r.buf.Len() >= flushSize || (r.out.arrow != nil && r.out.arrow.rows >= arrowBatchRows) {
		if err := r.flush(); err != nil {
			return err
		}
	}
	if r.src.scanned() >= r.nextProgress {
		r.nextProgress = r.src.scanned() + progressInterval
		if err := r.flush(); err != nil {
			return err
		}
		return r.sink.Progress(r.src.scanned(), r.total)
	}
	return nil
}

// fatal ends the query on input that does not parse or a row the Arrow
// schema does not fit. The service sends the result data it produced
// first, as a resultData record even when empty, then the fatal error
// record (azure-sdk-for-python
// tests/recordings/test_quick_query.test_quick_query_readall_with_fatal_error_handler.yaml;
// for Arrow output, the azure-sdk-for-js recordings in replay_test.go).
func (r *runner) fatal(e *ParseError) error {
	if r.out.arrow != nil {
		r.out.arrow.writeBatch(&r.buf)
	}
	err := r.sink.Data(r.buf.Bytes())
	r.buf.Reset()
	if err != nil {
		return err
	}
	name := e.Name
	if name == "" {
		name = "ParseError"
	}
	return r.sink.Error(true, name, e.Msg, e.Position)
}

func (r *runner) flush() error {
	if r.out.arrow != nil {
		r.out.arrow.writeBatch(&r.buf)
	}
	if r.buf.Len() == 0 {
		return nil
	}
	err := r.sink.Data(r.buf.Bytes())
	r.buf.Reset()
	return err
}

// accumulator computes one aggregate over the records that passed WHERE.
type accumulator struct {
	count    int64
	intSum   int64
	floatSum float64
	isFloat  bool
	best     value
	has      bool
}

func (a *accumulator) add(ev *evaluator, ag *aggregate, rec record) error {
	if ag.x == nil { // COUNT(*)
		a.count++
		return nil
	}
	v, err := ev.eval(ag.x, rec)
	if err != nil || v.isNullOrMissing() {
		return err
	}
	switch ag.fn {
	case "COUNT":
		a.count++
	case "SUM", "AVG":
		n, err := v.asNumber()
		if err != nil {
			return err
		}
		a.count++
		if n.k == kindFloat || a.isFloat {
			if !a.isFloat {
				a.isFloat, a.floatSum = true, float64(a.intSum)
			}
			f, _ := n.asFloat()
			a.floatSum += f
		} else {
			a.intSum += n.i
		}
	case "MIN", "MAX":
		if !a.has {
			a.best, a.has = v, true
			return nil
		}
		cmp, _, err := compareValues(v, a.best)
		if err != nil {
			return err
		}
		if (ag.fn == "MIN" && cmp < 0) || (ag.fn == "MAX" && cmp > 0) {
			a.best = v
		}
	}
	return nil
}

func (a *accumulator) result(fn string) value {
	switch fn {
	case "COUNT":
		return intValue(a.count)
	case "MIN", "MAX":
		if !a.has {
			return null
		}
		return a.best
	}
	if a.count == 0 {
		return null
	}
	sum := floatValue(a.floatSum)
	if !a.isFloat {
		sum = intValue(a.intSum)
	}
	if fn == "SUM" {
		return sum
	}
	f, _ := sum.asFloat()
	return floatValue(f / float64(a.count))
}

// writer renders output records.
type writer struct {
	json  bool
	csv   CSV
	sep   string
	arrow *arrowBatch // for Arrow output
}

func newWriter(o Output) *writer {
	w := &writer{json: o.JSON, csv: o.CSV, sep: o.Sep}
	if len(o.Arrow) > 0 {
		w.arrow = newArrowBatch(o.Arrow)
	}
	if w.sep == "" {
		w.sep = "\n"
	}
	return w
}

// writeJSONObject writes one output object; a MISSING value leaves its
// member out.
func (w *writer) writeJSONObject(b *bytes.Buffer, names []string, values []value) {
	o := make(object, 0, len(names))
	for i := range names {
		if values[i].k != kindMissing {
			o = append(o, member{names[i], values[i].jsonValue()})
		}
	}
	w.writeJSONValue(b, o)
}

func (w *writer) writeJSONValue(b *bytes.Buffer, v any) {
	enc, err := json.Marshal(jsonOut(v))
	if err != nil {
		enc = []byte("null")
	}
	b.Write(enc)
	b.WriteString(w.sep)
}

// writeCSV writes one record, quoting fields that hold a separator or the
// quote (the quote doubled, or preceded by the escape character).
func (w *writer) writeCSV(b *bytes.Buffer, fields []string) {
	c := w.csv
	for i, f := range fields {
		if i > 0 {
			b.WriteString(c.ColumnSeparator)
		}
		needs := c.FieldQuote != "" && (strings.Contains(f, c.ColumnSeparator) || strings.Contains(f, c.FieldQuote) ||
			strings.Contains(f, c.RecordSeparator) || strings.ContainsAny(f, "\r\n"))
		if !needs {
			if c.EscapeChar != "" {
				f = strings.ReplaceAll(f, c.ColumnSeparator, c.EscapeChar+c.ColumnSeparator)
			}
			b.WriteString(f)
			continue
		}
		escaped := c.FieldQuote + c.FieldQuote
		if c.EscapeChar != "" {
			escaped = c.EscapeChar + c.FieldQuote
		}
		b.WriteString(c.FieldQuote)
		b.WriteString(strings.ReplaceAll(f, c.FieldQuote, escaped))
		b.WriteString(c.FieldQuote)
	}
	b.WriteString(c.RecordSeparator)
}
