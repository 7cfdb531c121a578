package svcprops

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
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
		// Enabled is required (azblob's TestAccountDeleteRetentionPolicyEmpty).
		"empty policy":            `<StorageServiceProperties><DeleteRetentionPolicy></DeleteRetentionPolicy></StorageServiceProperties>`,
		"logging without enabled": `<StorageServiceProperties><Logging><Version>1.0</Version><Delete>false</Delete><Read>false</Read><Write>false</Write><RetentionPolicy><Days>3</Days></RetentionPolicy></Logging></StorageServiceProperties>`,
		"six rules":               "<StorageServiceProperties><Cors>" + strings.Repeat("<CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>1</MaxAgeInSeconds></CorsRule>", 6) + "</Cors></StorageServiceProperties>",
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
}

// TestActualVaryTable follows, row by row, the table of GET/HEAD answers in
// "Cross-Origin Resource Sharing (CORS) support for the Azure Storage
// services" (section "Understanding the use of the Vary header"), plus its
// note that other methods never get Vary. The sample's first rule allows
// a.example and b.example to GET and PUT; its second allows any origin to
// HEAD.
func TestActualVaryTable(t *testing.T) {
	rules, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name           string
		props          Properties
		origin, method string
		vary           bool
		allowOrigin    string
		exposed        string
	}{
		{"no origin, no rules", Properties{}, "", "GET", false, "", ""},
		{"no origin, rules, none allows all", rules, "", "GET", true, "", ""},
		{"no origin, a rule allows all", rules, "", "HEAD", false, "*", ""},
		{"origin, no rules", Properties{}, "http://a.example", "GET", false, "", ""},
		{"origin matched exactly", rules, "http://a.example", "GET", true, "http://a.example", "x-ms-meta-*"},
		{"origin matched by no rule", rules, "http://c.example", "GET", true, "", ""},
		{"origin matched by a rule allowing all", rules, "http://c.example", "HEAD", false, "*", ""},
		{"not GET or HEAD, no Vary", rules, "http://c.example", "DELETE", false, "", ""},
		{"PUT matched exactly, no Vary", rules, "http://b.example", "PUT", false, "http://b.example", "x-ms-meta-*"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.props.Actual(tc.origin, tc.method)
			if got := out.Get("Vary") == "Origin"; got != tc.vary {
				t.Errorf("Vary: Origin %v, want %v (%v)", got, tc.vary, out)
			}
			if got := out.Get("Access-Control-Allow-Origin"); got != tc.allowOrigin {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tc.allowOrigin)
			}
			if got := out.Get("Access-Control-Expose-Headers"); got != tc.exposed {
				t.Errorf("Access-Control-Expose-Headers %q, want %q", got, tc.exposed)
			}
		})
	}
}

// TestParseNonEmpty: the Queue service's parse refuses a document that sets
// nothing (azure-sdk-for-python recording
// test_queue_service_properties_async.test_too_many_cors_rules, 400
// InvalidXmlDocument) and takes one that sets any element; Parse, which the
// other services use, still takes the empty document.
func TestParseNonEmpty(t *testing.T) {
	const empty = "<?xml version='1.0' encoding='utf-8'?>\n<StorageServiceProperties />"
	if _, err := ParseNonEmpty(strings.NewReader(empty)); !azerr.Is(err, azerr.InvalidXmlDocument) {
		t.Fatalf("empty document: %v", err)
	}
	if _, err := ParseNonEmpty(strings.NewReader(sample)); err != nil {
		t.Fatalf("sample: %v", err)
	}
	if _, err := ParseNonEmpty(strings.NewReader("<StorageServiceProperties><Cors/></StorageServiceProperties>")); err != nil {
		t.Fatalf("empty Cors clears the rules: %v", err)
	}
	if _, err := Parse(strings.NewReader(empty)); err != nil {
		t.Fatalf("Parse: %v", err)
	}
}
