package svcprops

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/azerr"
)

const sample = `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties>
<Cors><CorsRule><AllowedOrigins>http://a.example,http://b.example</AllowedOrigins><AllowedMethods>GET,PUT</AllowedMethods>
<MaxAgeInSeconds>60</MaxAgeInSeconds><ExposedHeaders>x-ms-meta-*</ExposedHeaders><AllowedHeaders>x-ms-meta-*,content-type</AllowedHeaders></CorsRule>
<CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>HEAD</AllowedMethods><MaxAgeInSeconds>5</MaxAgeInSeconds><ExposedHeaders></ExposedHeaders><AllowedHeaders></AllowedHeaders></CorsRule></Cors>
<DefaultServiceVersion>2021-08-06</DefaultServiceVersion></StorageServiceProperties>`

func TestParseMergeMarshal(t *testing.T) {
	set, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	merged := Defaults().Merge(set)
	if merged.Logging == nil || merged.Logging.Version != "1.0" {
		t.Errorf("Logging not kept from defaults: %+v", merged.Logging)
	}
	if *merged.DefaultServiceVersion != "2021-08-06" || len(merged.Cors.Rules) != 2 {
		t.Errorf("merge lost fields: %+v", merged)
	}
	round, err := Parse(strings.NewReader(string(merged.Marshal())))
	if err != nil {
		t.Fatalf("re-parse: %v", err)
	}
	if len(round.Cors.Rules) != 2 || round.Cors.Rules[0].MaxAgeInSeconds != 60 {
		t.Errorf("round trip: %+v", round.Cors)
	}
}

func TestParseRejects(t *testing.T) {
	cases := map[string]string{
		"not xml":      "<StorageServiceProperties>",
		"bad method":   `<StorageServiceProperties><Cors><CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>FETCH</AllowedMethods><MaxAgeInSeconds>1</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>`,
		"days range":   `<StorageServiceProperties><DeleteRetentionPolicy><Enabled>true</Enabled><Days>400</Days></DeleteRetentionPolicy></StorageServiceProperties>`,
		"days missing": `<StorageServiceProperties><DeleteRetentionPolicy><Enabled>true</Enabled></DeleteRetentionPolicy></StorageServiceProperties>`,
		"six rules":    "<StorageServiceProperties><Cors>" + strings.Repeat("<CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>1</MaxAgeInSeconds></CorsRule>", 6) + "</Cors></StorageServiceProperties>",
	}
	for name, body := range cases {
		_, err := Parse(strings.NewReader(body))
		if _, ok := azerr.As(err); !ok || err == nil {
			t.Errorf("%s: got %v, want an Azure 400", name, err)
		}
	}
}

func TestCORS(t *testing.T) {
	p, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("Access-Control-Request-Headers", "x-ms-meta-color, content-type")
	out, ok := p.Preflight(h, "http://b.example", "PUT")
	if !ok || out.Get("Access-Control-Allow-Origin") != "http://b.example" || out.Get("Access-Control-Max-Age") != "60" {
		t.Errorf("preflight allowed: %v %v", ok, out)
	}
	h.Set("Access-Control-Request-Headers", "x-custom")
	if _, ok := p.Preflight(h, "http://b.example", "PUT"); ok {
		t.Error("preflight with a header no rule allows must fail")
	}
	if _, ok := p.Preflight(http.Header{}, "http://c.example", "GET"); ok {
		t.Error("preflight from an unknown origin must fail")
	}
	if out := p.Actual("http://c.example", "HEAD"); out.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("wildcard rule: %v", out)
	}
	if out := p.Actual("http://a.example", "GET"); out.Get("Access-Control-Expose-Headers") != "x-ms-meta-*" {
		t.Errorf("exposed headers: %v", out)
	}
	if out := p.Actual("http://c.example", "GET"); out != nil {
		t.Errorf("no rule should match: %v", out)
	}
}
