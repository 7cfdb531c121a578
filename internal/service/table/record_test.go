package table

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

func sampleEntity() *Entity {
	return &Entity{PK: "p\x00k", RK: "r", Timestamp: 637000000000000000, Props: []Property{
		{"S", odata.String("héllo")},
		{"B", odata.Binary([]byte{0, 1, 255})},
		{"T", odata.Bool(true)},
		{"D", odata.DateTime(time.Date(2001, 2, 3, 4, 5, 6, 700, time.UTC))},
		{"F", odata.Double(-1.25)},
		{"N", odata.Double(math.Inf(-1))},
		{"G", odata.Guid("c9da6455-213d-42c9-9a79-3e9149a57833")},
		{"I", odata.Int32(-7)},
		{"L", odata.Int64(math.MinInt64)},
	}}
}

func TestRecordRoundTrip(t *testing.T) {
	e := sampleEntity()
	got, err := decodeEntity(e.PK, e.RK, encodeEntity(e))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, e) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, e)
	}
	key := entityKey("acct", "MyTable", e.PK, e.RK)
	pk, rk, err := decodeKey(key)
	if err != nil || pk != e.PK || rk != e.RK {
		t.Fatalf("key round trip: %q %q %v", pk, rk, err)
	}
	view := &recordView{prefixLen: len(tablePrefix("acct", "MyTable"))}
	view.reset(key, encodeEntity(e))
	for _, p := range e.Props {
		v, ok := view.Property(p.Name)
		if !ok || !reflect.DeepEqual(v, p.Value) {
			t.Errorf("view %s = %+v, %v", p.Name, v, ok)
		}
	}
	if _, ok := view.Property("Nope"); ok {
		t.Error("view found a missing property")
	}
	if v, _ := view.Property("PartitionKey"); v.Str != e.PK {
		t.Errorf("view PartitionKey %q", v.Str)
	}
}

func TestRecordRejectsCorruption(t *testing.T) {
	b := encodeEntity(sampleEntity())
	for i := 0; i < len(b); i++ {
		if _, err := decodeEntity("p", "r", b[:i]); err == nil {
			t.Fatalf("truncated record of %d bytes decoded", i)
		}
	}
}

func TestParseTarget(t *testing.T) {
	cases := []struct {
		path string
		want target
		bad  bool
	}{
		{path: "", want: target{level: levelService}},
		{path: "/", want: target{level: levelService}},
		{path: "/Tables", want: target{level: levelTables}},
		{path: "/tables()", want: target{level: levelTables}},
		{path: "/Tables('abc')", want: target{level: levelTable, table: "abc"}},
		{path: "/Tables(TableName='abc')", want: target{level: levelTable, table: "abc"}},
		{path: "/$batch", want: target{level: levelBatch}},
		{path: "/mytable", want: target{level: levelTableRes, table: "mytable"}},
		{path: "/mytable()", want: target{level: levelEntities, table: "mytable"}},
		{path: "/t(PartitionKey='a',RowKey='b')", want: target{level: levelEntity, table: "t", pk: "a", rk: "b"}},
		{path: "/t(RowKey='b', PartitionKey='a')", want: target{level: levelEntity, table: "t", pk: "a", rk: "b"}},
		{path: "/t(PartitionKey='it''s',RowKey='a,b)')", want: target{level: levelEntity, table: "t", pk: "it's", rk: "a,b)"}},
		{path: "/t(PartitionKey='',RowKey='')", want: target{level: levelEntity, table: "t"}},
		{path: "/t(PartitionKey='a')", bad: true},
		{path: "/t(PartitionKey='a',RowKey='b'", bad: true},
		{path: "/t(PartitionKey=a,RowKey='b')", bad: true},
		{path: "/t(Foo='a',RowKey='b')", bad: true},
		{path: "/a/b", bad: true},
		{path: "/Tables('abc", bad: true},
	}
	for _, c := range cases {
		got, err := parseTarget(c.path)
		if c.bad {
			if err == nil {
				t.Errorf("%q parsed as %+v", c.path, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.path, got, err, c.want)
		}
	}
}

func TestETagRoundTrip(t *testing.T) {
	ticks := odata.TimeToTicks(time.Date(2021, 11, 9, 1, 43, 40, 805151600, time.UTC))
	tag := formatETag(ticks)
	if tag != `W/"datetime'2021-11-09T01%3A43%3A40.8051516Z'"` {
		t.Fatalf("formatETag = %s", tag)
	}
	for _, in := range []string{tag, `"datetime'2021-11-09T01%3A43%3A40.8051516Z'"`, `W/"datetime'2021-11-09T01:43:40.8051516Z'"`} {
		if got, ok := parseETag(in); !ok || got != ticks {
			t.Errorf("parseETag(%s) = %d, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", `"0x8D7"`, `W/"datetime'nope'"`, "W/"} {
		if _, ok := parseETag(bad); ok {
			t.Errorf("parseETag(%q) accepted", bad)
		}
	}
	if _, err := parseIfMatch("garbage"); !azerr.Is(err, azerr.InvalidInput) {
		t.Errorf("If-Match garbage: %v", err)
	}
}

func TestContinuationToken(t *testing.T) {
	for _, s := range []string{"", "Smith", "a\x00b", strings.Repeat("é", 300)} {
		tok := encodeToken(s)
		if got, ok := decodeToken(tok); !ok || got != s {
			t.Errorf("token %q -> %q, %v", s, got, ok)
		}
	}
	for _, bad := range []string{"x", "1!3!abcd", "1!2!!!", "2!1!a"} {
		if _, ok := decodeToken(bad); ok {
			t.Errorf("decodeToken(%q) accepted", bad)
		}
	}
}

func TestPayloadTypes(t *testing.T) {
	cases := []struct {
		body string
		want odata.Value
		code string
	}{
		{body: `{"X":"s"}`, want: odata.String("s")},
		{body: `{"X":5}`, want: odata.Int32(5)},
		{body: `{"X":5.5}`, want: odata.Double(5.5)},
		{body: `{"X":1e3}`, want: odata.Double(1000)},
		{body: `{"X":3000000000}`, want: odata.Double(3e9)},
		{body: `{"X":true}`, want: odata.Bool(true)},
		{body: `{"X":null}`, want: odata.Value{}},
		{body: `{"X@odata.type":"Edm.Int64","X":"-12"}`, want: odata.Int64(-12)},
		{body: `{"X@odata.type":"Edm.Double","X":"-Infinity"}`, want: odata.Double(math.Inf(-1))},
		{body: `{"X@odata.type":"Edm.Double","X":"2.5"}`, want: odata.Double(2.5)},
		{body: `{"X@odata.type":"Edm.Int32","X":12}`, want: odata.Int32(12)},
		{body: `{"X@odata.type":"Edm.Guid","X":"{C9DA6455-213D-42C9-9A79-3E9149A57833}"}`, want: odata.Guid("c9da6455-213d-42c9-9a79-3e9149a57833")},
		{body: `{"X@odata.type":"Edm.Boolean","X":false}`, want: odata.Bool(false)},
		{body: `{"X@odata.type":"Edm.String","X":"s"}`, want: odata.String("s")},
		{body: `{"X@odata.type":"Edm.Int32","X":3000000000}`, code: azerr.InvalidInput},
		{body: `{"X@odata.type":"Edm.Guid","X":"nope"}`, code: azerr.InvalidInput},
		{body: `{"X@odata.type":"Edm.Binary","X":"%%%"}`, code: azerr.InvalidInput},
		{body: `{"X@odata.type":"Edm.DateTime","X":"1500-01-01T00:00:00Z"}`, code: azerr.InvalidInput},
		{body: `{"X@odata.type":"Edm.Thing","X":1}`, code: azerr.InvalidInput},
		{body: `{"Y@odata.type":"Edm.Int64","X":1}`, code: azerr.InvalidInput},
		{body: `{"X":{"a":1}}`, code: azerr.InvalidInput},
		{body: `{"X":[1]}`, code: azerr.InvalidInput},
		{body: `{"X":1} {}`, code: azerr.InvalidInput},
		{body: `{"Bad-Name":1}`, code: azerr.PropertyNameInvalid},
	}
	for _, c := range cases {
		p, err := parsePayload([]byte(c.body))
		if c.code != "" {
			if !azerr.Is(err, c.code) {
				t.Errorf("%s: got %v, want %s", c.body, err, c.code)
			}
			continue
		}
		if err != nil || len(p.Props) != 1 {
			t.Errorf("%s: %v %+v", c.body, err, p)
			continue
		}
		got := p.Props[0].Value
		if !reflect.DeepEqual(got, c.want) && !(math.IsNaN(got.Float) && math.IsNaN(c.want.Float)) {
			t.Errorf("%s: got %+v, want %+v", c.body, got, c.want)
		}
	}
}

func FuzzPayload(f *testing.F) {
	f.Add(`{"PartitionKey":"p","RowKey":"r","A@odata.type":"Edm.Int64","A":"5","B":1.5}`)
	f.Add(`{"X@odata.type":"Edm.Binary","X":"AAEC"}`)
	f.Fuzz(func(t *testing.T, body string) {
		p, err := parsePayload([]byte(body))
		if err != nil {
			if _, ok := azerr.As(err); !ok {
				t.Fatalf("non-Azure error %v", err)
			}
			return
		}
		e := &Entity{}
		for _, prop := range p.Props {
			if prop.Value.Kind != odata.KindNull { // nulls are never stored
				e.Props = append(e.Props, prop)
			}
		}
		if p.PK != nil {
			e.PK = *p.PK
		}
		got, err := decodeEntity(e.PK, e.RK, encodeEntity(e))
		if err != nil || len(got.Props) != len(e.Props) {
			t.Fatalf("record round trip failed: %v", err)
		}
	})
}
