package cond

import (
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Header values that hold (pass) or fail against the existing resource.
var (
	matchPass     = []string{"If-Match", currentETag}
	matchFail     = []string{"If-Match", otherETag}
	noneMatchPass = []string{"If-None-Match", otherETag}
	noneMatchFail = []string{"If-None-Match", currentETag}
	imsPass       = []string{"If-Modified-Since", before}
	imsFail       = []string{"If-Modified-Since", after}
	iusPass       = []string{"If-Unmodified-Since", after}
	iusFail       = []string{"If-Unmodified-Since", before}
)

// with joins header pairs into one header.
func with(pairs ...[]string) http.Header {
	var flat []string
	for _, p := range pairs {
		flat = append(flat, p...)
	}
	return hdr(flat...)
}

type checkCase struct {
	name   string
	h      http.Header
	res    Resource
	status int // 0: success
	code   string
}

func runChecks(t *testing.T, cases []checkCase, check func(Conditions, Resource) error) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, check(mustParse(t, tt.h), tt.res), tt.status, tt.code)
		})
	}
}

const (
	notMet    = azerr.ConditionNotMet
	srcNotMet = azerr.SourceConditionNotMet
	multiple  = azerr.MultipleConditionHeadersNotSupported
)

// TestCheckReadCombined: reads at x-ms-version >= 2013-08-15, every row of
// the two example tables of "Specifying conditional headers for Blob service
// operations", the read column of its status table, lists and missing
// resources.
func TestCheckReadCombined(t *testing.T) {
	cases := []checkCase{
		// DOC table If-Match x If-Modified-Since.
		{"If-Match 412, IMS 200 -> 412", with(matchFail, imsPass), existing, 412, notMet},
		{"If-Match 412, IMS 304 -> 412", with(matchFail, imsFail), existing, 412, notMet},
		{"If-Match 200, IMS 200 -> 200", with(matchPass, imsPass), existing, 0, ""},
		{"If-Match 200, IMS 304 -> 304", with(matchPass, imsFail), existing, 304, notMet},
		// DOC table If-None-Match x If-Modified-Since.
		{"INM 304, IMS 200 -> 200", with(noneMatchFail, imsPass), existing, 0, ""},
		{"INM 200, IMS 200 -> 200", with(noneMatchPass, imsPass), existing, 0, ""},
		{"INM 200, IMS 304 -> 200", with(noneMatchPass, imsFail), existing, 0, ""},
		{"INM 304, IMS 304 -> 304", with(noneMatchFail, imsFail), existing, 304, notMet},
		// An If-Unmodified-Since failure turns even a 304 into 412.
		{"IUS 412, INM 304 -> 412", with(iusFail, noneMatchFail), existing, 412, notMet},
		{"IUS 412, IMS 304 -> 412", with(iusFail, imsFail), existing, 412, notMet},
		{"IUS 200, IMS 304 -> 304", with(iusPass, imsFail), existing, 304, notMet},
		{"all four hold", with(matchPass, iusPass, noneMatchPass, imsPass), existing, 0, ""},
		{"all four, If-Match fails", with(matchFail, iusPass, noneMatchPass, imsPass), existing, 412, notMet},
		{"all four, group fails", with(matchPass, iusPass, noneMatchFail, imsFail), existing, 304, notMet},
		// The status table's read column, one header at a time.
		{"IMS fails -> 304", with(imsFail), existing, 304, notMet},
		{"IUS fails -> 412", with(iusFail), existing, 412, notMet},
		{"If-Match fails -> 412", with(matchFail), existing, 412, notMet},
		{"INM fails -> 304", with(noneMatchFail), existing, 304, notMet},
		{"IMS holds", with(imsPass), existing, 0, ""},
		{"IUS holds", with(iusPass), existing, 0, ""},
		{"If-Match holds", with(matchPass), existing, 0, ""},
		{"INM holds", with(noneMatchPass), existing, 0, ""},
		{"no conditions", hdr(), existing, 0, ""},
		// Lists: If-Match OR-ed, If-None-Match AND-ed.
		{"If-Match list, one matches", hdr("If-Match", otherETag+", "+currentETag), existing, 0, ""},
		{"If-Match list, none matches", hdr("If-Match", otherETag+`, "x"`), existing, 412, notMet},
		{"INM list, one matches", hdr("If-None-Match", otherETag+", "+currentETag), existing, 304, notMet},
		{"INM list, none matches", hdr("If-None-Match", otherETag+`, "x"`), existing, 0, ""},
		{"If-Match unquoted", hdr("If-Match", "0x8D7FADAB3EA4124"), existing, 0, ""},
		{"If-Match *", hdr("If-Match", "*"), existing, 0, ""},
		{"INM * on existing", hdr("If-None-Match", "*"), existing, 304, notMet},
		// A missing resource: only If-Match can fail.
		{"missing, If-Match", with(matchPass), missing, 412, notMet},
		{"missing, If-Match *", hdr("If-Match", "*"), missing, 412, notMet},
		{"missing, INM *", hdr("If-None-Match", "*"), missing, 0, ""},
		{"missing, INM", with(noneMatchFail), missing, 0, ""},
		{"missing, IMS", with(imsFail), missing, 0, ""},
		{"missing, IUS", with(iusFail), missing, 0, ""},
	}
	for _, version := range []string{"2013-08-15", "2021-10-04"} {
		t.Run(version, func(t *testing.T) {
			runChecks(t, cases, func(c Conditions, r Resource) error { return c.CheckRead(r, version) })
		})
	}
}

// selectionCases are the header-selection rules shared by writes, copy
// sources and reads before 2013-08-15 ("Specifying conditional headers
// for Blob service operations", on versions before 2013-08-15). late is the status of an
// If-None-Match or If-Modified-Since failure, code the failure's code.
func selectionCases(late int, code string) []checkCase {
	return []checkCase{
		// One header at a time (the status table's columns).
		{"IMS fails", with(imsFail), existing, late, code},
		{"INM fails", with(noneMatchFail), existing, late, code},
		{"If-Match fails", with(matchFail), existing, 412, code},
		{"IUS fails", with(iusFail), existing, 412, code},
		{"IMS holds", with(imsPass), existing, 0, ""},
		{"INM holds", with(noneMatchPass), existing, 0, ""},
		{"If-Match holds", with(matchPass), existing, 0, ""},
		{"IUS holds", with(iusPass), existing, 0, ""},
		{"no conditions", hdr(), existing, 0, ""},
		{"If-Match *", hdr("If-Match", "*"), existing, 0, ""},
		{"INM * on existing", hdr("If-None-Match", "*"), existing, late, code},
		// The two allowed pairs: only the ETag header is evaluated.
		{"INM holds, IMS fails: INM decides", with(noneMatchPass, imsFail), existing, 0, ""},
		{"INM fails, IMS holds: INM decides", with(noneMatchFail, imsPass), existing, late, code},
		{"If-Match holds, IUS fails: If-Match decides", with(matchPass, iusFail), existing, 0, ""},
		{"If-Match fails, IUS holds: If-Match decides", with(matchFail, iusPass), existing, 412, code},
		// Every other combination is 400.
		{"If-Match + IMS", with(matchPass, imsPass), existing, 400, multiple},
		{"If-Match + INM", with(matchPass, noneMatchPass), existing, 400, multiple},
		{"INM + IUS", with(noneMatchPass, iusPass), existing, 400, multiple},
		{"IMS + IUS", with(imsPass, iusPass), existing, 400, multiple},
		{"three headers", with(matchPass, iusPass, imsPass), existing, 400, multiple},
		{"four headers", with(matchPass, iusPass, noneMatchPass, imsPass), existing, 400, multiple},
		{"two If-Match etags", hdr("If-Match", currentETag+", "+otherETag), existing, 400, multiple},
		{"two INM etags", hdr("If-None-Match", otherETag, "If-None-Match", `"x"`), existing, 400, multiple},
		{"combination refused on a missing resource too", with(matchPass, imsPass), missing, 400, multiple},
		// A missing resource: If-Match fails, the others are skipped.
		{"missing, If-Match", with(matchPass), missing, 412, code},
		{"missing, If-Match *", hdr("If-Match", "*"), missing, 412, code},
		{"missing, If-Match + IUS", with(matchPass, iusPass), missing, 412, code},
		{"missing, INM *", hdr("If-None-Match", "*"), missing, 0, ""},
		{"missing, INM", with(noneMatchFail), missing, 0, ""},
		{"missing, IMS", with(imsFail), missing, 0, ""},
		{"missing, IUS", with(iusFail), missing, 0, ""},
	}
}

// TestCheckReadBefore2013: older reads select one header like writes, but
// If-None-Match and If-Modified-Since failures are 304.
func TestCheckReadBefore2013(t *testing.T) {
	for _, version := range []string{"2012-02-12", "2009-09-19", ""} {
		t.Run("version "+version, func(t *testing.T) {
			runChecks(t, selectionCases(304, notMet), func(c Conditions, r Resource) error { return c.CheckRead(r, version) })
		})
	}
}

// TestCheckWrite: the write column of the conditional-headers page's status
// table (every failure 412) with its header-selection rules.
func TestCheckWrite(t *testing.T) {
	cases := append(selectionCases(412, notMet),
		// x-ms-if-tags is AND-ed by the blob service, outside the count.
		checkCase{"If-Match + if-tags", with(matchPass, []string{"x-ms-if-tags", "x"}), existing, 0, ""},
		checkCase{"If-Match fails + if-tags", with(matchFail, []string{"x-ms-if-tags", "x"}), existing, 412, notMet},
		checkCase{"INM + IMS + if-tags", with(noneMatchPass, imsFail, []string{"x-ms-if-tags", "x"}), existing, 0, ""},
		// A blob of staged blocks only: absent to the ETag headers, dated
		// for the date headers (recorded TestBlobPutBlockListIfModifiedSinceFalse).
		checkCase{"staged: If-None-Match *", hdr("If-None-Match", "*"), staged, 0, ""},
		checkCase{"staged: If-Match *", hdr("If-Match", "*"), staged, 412, notMet},
		checkCase{"staged: IMS fails", hdr(imsFail...), staged, 412, notMet},
		checkCase{"staged: IMS holds", hdr(imsPass...), staged, 0, ""},
		checkCase{"staged: IUS fails", hdr(iusFail...), staged, 412, notMet},
		checkCase{"missing: IMS skipped", hdr(imsFail...), missing, 0, ""},
	)
	runChecks(t, cases, Conditions.CheckWrite)
}

// TestCheckSource: copy-source conditions fail with 412
// SourceConditionNotMet, never 304.
func TestCheckSource(t *testing.T) {
	cases := selectionCases(412, srcNotMet)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			src := http.Header{}
			for name, values := range tt.h {
				for _, v := range values {
					src.Add("x-ms-source-"+name, v)
				}
			}
			c, err := ParseSource(src)
			wantErr(t, err, 0, "")
			wantErr(t, c.CheckSource(tt.res), tt.status, tt.code)
		})
	}
}
