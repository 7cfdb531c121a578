package azurite

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

// An element Azurite never stored keeps the default of an account that
// never set it; one it stored replaces it.
func TestServicePropsOverDefaults(t *testing.T) {
	var d azServiceProps
	doc := `{"accountName":"a","cors":[{"allowedOrigins":"*","allowedMethods":"GET","allowedHeaders":"","exposedHeaders":"","maxAgeInSeconds":9}],` +
		`"deleteRetentionPolicy":{"enabled":true,"days":4},"meta":{"revision":0},"$loki":1}`
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	got, err := d.properties()
	if err != nil {
		t.Fatal(err)
	}
	want := svcprops.Defaults()
	want.Cors = &svcprops.CorsRules{Rules: []svcprops.CorsRule{{AllowedOrigins: "*", AllowedMethods: "GET", MaxAgeInSeconds: 9}}}
	days := 4
	want.DeleteRetentionPolicy = &svcprops.RetentionPolicy{Enabled: true, Days: &days}
	if g, w := string(got.Marshal()), string(want.Marshal()); g != w {
		t.Errorf("properties\n got %s\nwant %s", g, w)
	}
}

// What Set Service Properties would refuse is refused, so that no
// account is left with properties its service cannot answer.
func TestServicePropsRefused(t *testing.T) {
	rule := `{"allowedOrigins":"*","allowedMethods":"GET","maxAgeInSeconds":1}`
	for name, doc := range map[string]string{
		"enabled retention without days": `{"logging":{"version":"1.0","retentionPolicy":{"enabled":true}}}`,
		"retention over a year":          `{"deleteRetentionPolicy":{"enabled":true,"days":366}}`,
		"six CORS rules":                 `{"cors":[` + strings.Repeat(rule+",", 5) + rule + `]}`,
		"an unknown CORS method":         `{"cors":[{"allowedOrigins":"*","allowedMethods":"FETCH"}]}`,
		"a negative max age":             `{"cors":[{"allowedOrigins":"*","allowedMethods":"GET","maxAgeInSeconds":-1}]}`,
	} {
		var d azServiceProps
		if err := json.Unmarshal([]byte(doc), &d); err != nil {
			t.Fatal(err)
		}
		if _, err := d.properties(); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
}
