package auth

import (
	"encoding/base64"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// devSig signs sts with the development key.
func devSig(sts string) string {
	key, _ := base64.StdEncoding.DecodeString(DevAccountKey)
	return base64.StdEncoding.EncodeToString(sign(key, sts))
}

// Layouts the SDKs under test no longer produce, written out field by field
// from the Azure reference pages "Create a service SAS" and "Create an
// account SAS" (learn.microsoft.com/rest/api/storageservices/create-service-sas, create-account-sas).
func TestSASVersionLayouts(t *testing.T) {
	st, se := "2025-03-14T11:00:00Z", "2025-03-14T13:00:00Z"
	lines := func(fields ...string) string { return strings.Join(fields, "\n") }
	for _, tc := range []struct {
		name   string
		svc    Service
		path   string
		params url.Values
		sts    string
	}{
		{"blob 2018-11-09", Blob, "/c1/b1", url.Values{"sv": {"2018-11-09"}, "sr": {"b"}, "sp": {"r"}, "st": {st}, "se": {se}, "rsct": {"text/plain"}},
			lines("r", st, se, "/blob/devstoreaccount1/c1/b1", "", "", "", "2018-11-09", "b", "", "", "", "", "", "text/plain")},
		{"blob 2015-04-05", Blob, "/c1/b1", url.Values{"sv": {"2015-04-05"}, "sr": {"b"}, "sp": {"r"}, "se": {se}, "spr": {"https,http"}},
			lines("r", "", se, "/blob/devstoreaccount1/c1/b1", "", "", "https,http", "2015-04-05", "", "", "", "", "")},
		{"blob 2013-08-15 without service prefix", Blob, "/c1", url.Values{"sv": {"2013-08-15"}, "sr": {"c"}, "sp": {"rl"}, "se": {se}, "rscc": {"no-cache"}},
			lines("rl", "", se, "/devstoreaccount1/c1", "", "2013-08-15", "no-cache", "", "", "", "")},
		{"blob 2012-02-12", Blob, "/c1/b1", url.Values{"sv": {"2012-02-12"}, "sr": {"b"}, "sp": {"r"}, "se": {se}},
			lines("r", "", se, "/devstoreaccount1/c1/b1", "", "2012-02-12")},
		{"queue 2012-02-12", Queue, "/q1/messages", url.Values{"sv": {"2012-02-12"}, "sp": {"p"}, "se": {se}},
			lines("p", "", se, "/devstoreaccount1/q1", "", "2012-02-12")},
		{"table 2013-08-15", Table, "/T1()", url.Values{"sv": {"2013-08-15"}, "tn": {"T1"}, "sp": {"r"}, "se": {se}, "spk": {"a"}, "epk": {"b"}},
			lines("r", "", se, "/devstoreaccount1/t1", "", "2013-08-15", "a", "", "b", "")},
		{"file 2015-02-21", File, "/s1/f", url.Values{"sv": {"2015-02-21"}, "sr": {"f"}, "sp": {"r"}, "se": {se}},
			lines("r", "", se, "/file/devstoreaccount1/s1/f", "", "2015-02-21", "", "", "", "", "")},
		{"account 2019-12-12", Blob, "/c1", url.Values{"sv": {"2019-12-12"}, "ss": {"bf"}, "srt": {"c"}, "sp": {"rl"}, "se": {se}, "sip": {"127.0.0.1"}},
			lines("devstoreaccount1", "rl", "bf", "c", "", se, "127.0.0.1", "", "2019-12-12", "")},
		{"account 2020-12-06", Blob, "/c1", url.Values{"sv": {"2020-12-06"}, "ss": {"b"}, "srt": {"c"}, "sp": {"r"}, "se": {se}},
			lines("devstoreaccount1", "r", "b", "c", "", se, "", "", "2020-12-06", "", "")},
		{"secondary path", Blob, "-secondary/c1/b1", url.Values{"sv": {"2020-12-06"}, "sr": {"b"}, "sp": {"r"}, "se": {se}},
			lines("r", "", se, "/blob/devstoreaccount1/c1/b1", "", "", "", "2020-12-06", "b", "", "", "", "", "", "", "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Authenticator{Accounts: DevAccounts(), Clock: clock.NewFake(sasNow)}
			tc.params.Set("sig", devSig(tc.sts))
			r := httptest.NewRequest("GET", "http://127.0.0.1/"+DevAccountName+tc.path+"?"+tc.params.Encode(), nil)
			if _, err := a.Authenticate(r, tc.svc, DevAccountName); err != nil {
				t.Fatal(detail(err))
			}
		})
	}
}

// A container named like the account, reached production-style.
func TestServiceSASContainerNamedLikeAccount(t *testing.T) {
	se := "2025-03-14T13:00:00Z"
	sts := strings.Join([]string{"r", "", se, "/blob/devstoreaccount1/devstoreaccount1/b1", "", "", "", "2020-12-06", "b", "", "", "", "", "", "", ""}, "\n")
	q := url.Values{"sv": {"2020-12-06"}, "sr": {"b"}, "sp": {"r"}, "se": {se}, "sig": {devSig(sts)}}
	r := httptest.NewRequest("GET", "http://devstoreaccount1.blob.localhost/devstoreaccount1/b1?"+q.Encode(), nil)
	a := &Authenticator{Accounts: DevAccounts(), Clock: clock.NewFake(sasNow)}
	id, err := a.Authenticate(r, Blob, DevAccountName)
	if err != nil {
		t.Fatal(detail(err))
	}
	if id.SAS.SignedContainer != DevAccountName || id.SAS.SignedObject != "b1" {
		t.Fatalf("scope %q %q", id.SAS.SignedContainer, id.SAS.SignedObject)
	}
}

func TestParseSASErrors(t *testing.T) {
	base := func(kv ...string) url.Values {
		v := url.Values{"sv": {"2020-12-06"}, "sr": {"b"}, "sp": {"r"}, "se": {"2025-03-14T13:00:00Z"}, "sig": {"c2ln"}}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				v.Del(kv[i])
			} else {
				v.Set(kv[i], kv[i+1])
			}
		}
		return v
	}
	account := func(kv ...string) url.Values {
		v := url.Values{"sv": {"2020-12-06"}, "ss": {"b"}, "srt": {"sco"}, "sp": {"r"}, "se": {"2025-03-14T13:00:00Z"}, "sig": {"c2ln"}}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				v.Del(kv[i])
			} else {
				v.Set(kv[i], kv[i+1])
			}
		}
		return v
	}
	for _, tc := range []struct {
		name   string
		svc    Service
		q      url.Values
		detail string
	}{
		{"empty sig", Blob, base("sig", ""), "sig is mandatory"},
		{"no version", Blob, base("sv", ""), "sv is mandatory"},
		{"bad version", Blob, base("sv", "2020-12"), "sv '2020-12' is not a valid version"},
		{"too old", Blob, base("sv", "2009-09-19"), "sv '2009-09-19' is older"},
		{"bad expiry", Blob, base("se", "tomorrow"), "se 'tomorrow' is not a valid ISO 8601 time"},
		{"bad start", Blob, base("st", "2025-13-01"), "st '2025-13-01'"},
		{"bad ip", Blob, base("sip", "10.0.0.300"), "sip '10.0.0.300'"},
		{"reversed ip range", Blob, base("sip", "10.0.0.9-10.0.0.1"), "sip '10.0.0.9-10.0.0.1'"},
		{"mixed ip range", Blob, base("sip", "10.0.0.1-::1"), "sip '10.0.0.1-::1'"},
		{"bad protocol", Blob, base("spr", "ftp"), "spr 'ftp'"},
		{"no permissions", Blob, base("sp", ""), "sp is mandatory"},
		{"no expiry", Blob, base("se", ""), "se is mandatory"},
		{"no resource", Blob, base("sr", ""), "sr is mandatory"},
		{"file resource on blob", Blob, base("sr", "s"), "sr 's' is not a valid signed resource for the blob service"},
		{"blob resource on file", File, base("sr", "c"), "sr 'c' is not a valid signed resource for the file service"},
		{"directory without depth", Blob, base("sr", "d"), "sdd '' is not a valid directory depth"},
		{"directory negative depth", Blob, base("sr", "d", "sdd", "-1"), "sdd '-1'"},
		{"table without tn", Table, base("sr", ""), "tn is mandatory"},
		{"row key without partition key", Table, base("sr", "", "tn", "t1", "srk", "r"), "srk and erk need spk and epk"},
		{"user delegation without key start", Blob, base("skoid", "x", "sktid", "y"), "skt is mandatory in a user delegation SAS"},
		{"account without ss", Blob, account("ss", ""), "ss is mandatory"},
		{"account without srt", Blob, account("srt", ""), "srt is mandatory"},
		{"account without sp", Blob, account("sp", ""), "sp is mandatory"},
		{"account without se", Blob, account("se", ""), "se is mandatory"},
		{"account bad services", Blob, account("ss", "bx"), "ss 'bx' is not valid"},
		{"account bad resource types", Blob, account("srt", "sca"), "srt 'sca' is not valid"},
		{"account version too old", Blob, account("sv", "2013-08-15"), "sv '2013-08-15' does not support account SAS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSAS(tc.q, tc.svc)
			if !azerr.Is(err, azerr.AuthenticationFailed) || !hasDetailPrefix(err, tc.detail) {
				t.Fatalf("got %v, want detail %q", detailOrNil(err), tc.detail)
			}
		})
	}
}

func TestParseSASValues(t *testing.T) {
	q := url.Values{"sv": {"2020-12-06"}, "sr": {"d"}, "sdd": {"2"}, "sp": {"r"}, "sig": {"c2ln"},
		"st": {"2025-03-14"}, "se": {"2025-03-14T13:00Z"}, "sip": {"::ffff:10.0.0.1-10.0.0.9"},
		"rscc": {"a"}, "rscd": {"b"}, "rsce": {"c"}, "rscl": {"d"}, "rsct": {"e"}}
	s, err := parseSAS(q, Blob)
	if err != nil {
		t.Fatal(detail(err))
	}
	if !s.Start.Equal(time.Date(2025, 3, 14, 0, 0, 0, 0, time.UTC)) || !s.Expiry.Equal(time.Date(2025, 3, 14, 13, 0, 0, 0, time.UTC)) {
		t.Errorf("times %v %v", s.Start, s.Expiry)
	}
	if s.DirectoryDepth != 2 || s.IsAccount() {
		t.Errorf("depth %d account %v", s.DirectoryDepth, s.IsAccount())
	}
	h := s.ResponseHeaders()
	for name, want := range map[string]string{"Cache-Control": "a", "Content-Disposition": "b", "Content-Encoding": "c", "Content-Language": "d", "Content-Type": "e"} {
		if h.Get(name) != want {
			t.Errorf("%s = %q, want %q", name, h.Get(name), want)
		}
	}
	if len((&SAS{}).ResponseHeaders()) != 0 {
		t.Error("a SAS without overrides overrides headers")
	}
}

func TestSASWindowMessages(t *testing.T) {
	start := sasNow.Add(time.Hour)
	id := &Identity{at: sasNow}
	err := id.checkWindow(start, start.Add(-time.Minute))
	if !hasDetailPrefix(err, "Signed expiry time [Fri, 14 Mar 2025 12:59:00 GMT] must be after signed start time [Fri, 14 Mar 2025 13:00:00 GMT]") {
		t.Errorf("reversed window: %v", detailOrNil(err))
	}
	// Expired without st: the request's time is the start (the answer
	// quoted by Microsoft Learn's shared access signature exercise).
	err = id.checkWindow(time.Time{}, sasNow.Add(-time.Second))
	if !hasDetailPrefix(err, "Signed expiry time [Fri, 14 Mar 2025 11:59:59 GMT] must be after signed start time [Fri, 14 Mar 2025 12:00:00 GMT]") {
		t.Errorf("expired: %v", detailOrNil(err))
	}
	// With st, an expired or not yet valid SAS is outside its time frame.
	err = id.checkWindow(sasNow.Add(-time.Hour), sasNow.Add(-time.Second))
	if !hasDetailPrefix(err, "Signature not valid in the specified time frame: Start [Fri, 14 Mar 2025 11:00:00 GMT] - Expiry [Fri, 14 Mar 2025 11:59:59 GMT] - Current [Fri, 14 Mar 2025 12:00:00 GMT]") {
		t.Errorf("expired with a start: %v", detailOrNil(err))
	}
	if err := id.checkWindow(time.Time{}, sasNow); err != nil {
		t.Errorf("expiry at the current second: %v", err)
	}
}
