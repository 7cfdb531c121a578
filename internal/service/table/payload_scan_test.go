package table

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkParsePayload parses the entity body table-insert sends.
func BenchmarkParsePayload(b *testing.B) {
	body := []byte(`{"Active":true,"Group":3,"Name":"bench entity r000017","PartitionKey":"p0","RowKey":"r000017","Score":12.5}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parsePayload(body); err != nil {
			b.Fatal(err)
		}
	}
}

// parseWithDecoder is parsePayload with every body taken through the
// streaming decoder, the reference the fast walk must agree with.
func parseWithDecoder(body []byte) (*payload, error) {
	p := &payload{}
	raws := map[string]json.RawMessage{}
	types := map[string]string{}
	var order []string
	if err := decodeMembers(body, func(name string, raw json.RawMessage) error {
		return p.collect(name, raw, raws, types, &order)
	}); err != nil {
		return nil, err
	}
	for _, name := range order {
		if err := p.add(name, raws[name], types[name]); err != nil {
			return nil, err
		}
	}
	for name := range types {
		if _, ok := raws[name]; !ok {
			return nil, invalidInput("A type annotation names a property the entity does not have.")
		}
	}
	return p, p.checkLimits()
}

var payloadCorpus = []string{
	`{"Active":true,"Group":3,"Name":"bench entity r1","PartitionKey":"p0","RowKey":"r1","Score":12.5}`,
	"  {\n\t\"PartitionKey\" : \"p\" ,\r\n \"RowKey\":\"r\" , \"N\" : -1.5e3 }  ",
	`{}`, ` { } `,
	`{"Na\u006De":"v","N\"q":"a\"b\\c","Uni\u00e9":"\u00e9\ud83d\ude00","A":"tab\there"}`,
	`{"Name":"caf` + "\xc3\xa9" + `","Bad":"` + "\xff\xfe" + `"}`,
	`{"N":null,"T":true,"F":false,"I":2147483648,"J":-2147483648,"D":1E400}`,
	`{"Obj":{"a":[1,"}",{"b":"]"}]},"Arr":[[],{}]}`,
	`{"N":"x","N":"y"}`,
	`{"N@odata.type":"Edm.Int64","N":"9007199254740993","B@odata.type":"Edm.Binary","B":"AAE="}`,
	`{"G@odata.type":"Edm.Guid","G":"c9da6455-213d-42c9-9a79-3e9149a57833","D@odata.type":"Edm.DateTime","D":"2026-11-24T12:00:00Z"}`,
	`{"X@odata.type":"Edm.Double","X":"NaN","Y@odata.type":"Edm.Double","Y":1.25,"Z@odata.type":"Edm.Boolean","Z":"true"}`,
	`{"Q@odata.type":"Edm.String","Q":5}`, `{"Q@odata.type":7,"Q":"a"}`, `{"M@odata.type":"Edm.String"}`,
	`{"odata.etag":"W/\"x\"","odata.metadata":"m","PartitionKey":null,"RowKey":"r"}`,
	`{"PartitionKey":5}`, `{"PartitionKey":"p","PartitionKey@odata.type":"Edm.Int32"}`,
	`{"1bad":"x"}`, `{"":"x"}`, `{"Timestamp":"2020-01-01T00:00:00Z"}`,
	`{"S":"\u0000\u001f","E":"\/"}`,
	// Bodies that are not one valid object keep the decoder's answers.
	``, ` `, `[1]`, `"s"`, `{`, `{"a":}`, `{"a":1,}`, `{}{}`, `{} x`, `{} }`, `{"a":1}]`, `{"a" 1}`, `nul`,
}

// TestFastPayloadWalkAgreesWithDecoder runs every corpus body through both
// paths.
func TestFastPayloadWalkAgreesWithDecoder(t *testing.T) {
	for _, body := range payloadCorpus {
		checkPayloadPathsAgree(t, []byte(body))
	}
}

func FuzzPayloadPathsAgree(f *testing.F) {
	for _, body := range payloadCorpus {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkPayloadPathsAgree(t, body) })
}

func checkPayloadPathsAgree(t *testing.T, body []byte) {
	t.Helper()
	got, gotErr := parsePayload(body)
	want, wantErr := parseWithDecoder(body)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%q: error %v, the decoder's %v", body, gotErr, wantErr)
	}
	if g, w := renderPayload(got), renderPayload(want); g != w {
		t.Fatalf("%q: %s, the decoder's %s", body, g, w)
	}
}

// renderPayload prints p by value (keys, not their addresses; NaN equal
// to NaN).
func renderPayload(p *payload) string {
	if p == nil {
		return "nil"
	}
	key := func(k *string) string {
		if k == nil {
			return "none"
		}
		return fmt.Sprintf("%q", *k)
	}
	return fmt.Sprintf("PK=%s RK=%s timestamp=%v props=%#v", key(p.PK), key(p.RK), p.sawTimestamp, p.Props)
}
