package app_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// The resources the matrix addresses: private ones for every caller, and
// for Blob a container of each public access level for anonymous callers.
const (
	privateContainer = "authzpriv"
	blobName         = "b"
	queueName        = "authzq"
	tableName        = "authzt"
	shareName        = "authzs"
	sasVersion       = "2020-10-02" // the last layouts without the encryption scope
	requestVersion   = "2021-12-02"
)

var publicContainers = map[string]string{"blob": "authzpubb", "container": "authzpubc"}

// letters are every SAS permission letter.
const letters = "racwdxyltfmeopiu"

// policyID names the stored access policy the fixtures give the private
// container, queue, table and share, with every letter its ACL accepts.
const policyID = "authzall"

var policyLetters = map[string]string{"blob": "racwdxltmeop", "queue": "raup", "table": "raud", "file": "rcwdl"}

type matrix struct {
	in     *lazulitest.Instance
	ops    *opLog
	client *http.Client
}

// caller is one way of sending a request.
type caller struct {
	name   string
	kind   string // sharedkey, wrongkey, anonymous, account, service, wrongsrt, wrongss, expired, future, ip, https, expired service, policy, object
	perm   string // SAS permissions
	public string // anonymous: the public access level of the container addressed
}

func (m *matrix) callers(svc string, want rule) []caller {
	cs := []caller{{name: "shared key", kind: "sharedkey"}, {name: "wrong key", kind: "wrongkey"},
		{name: "anonymous", kind: "anonymous"}}
	if svc == "blob" {
		for _, level := range []string{"blob", "container"} {
			cs = append(cs, caller{name: "anonymous, public " + level, kind: "anonymous", public: level})
		}
	}
	for _, l := range letters {
		cs = append(cs, caller{name: "account SAS " + string(l), kind: "account", perm: string(l)},
			caller{name: "service SAS " + string(l), kind: "service", perm: string(l)})
	}
	exact := want.perm + want.also
	if exact == "" {
		exact = "rwdlacup"
	}
	for _, k := range []string{"account", "service", "wrongsrt", "wrongss", "expired", "future", "ip", "https", "expired service"} {
		cs = append(cs, caller{name: k + " SAS " + exact, kind: k, perm: exact})
	}
	if svc == "blob" || svc == "file" {
		// A SAS for the one blob or file the object rows address.
		cs = append(cs, caller{name: svc + " SAS " + exact, kind: "object", perm: exact})
	}
	// A service SAS whose window and letters come from a stored access
	// policy (si) of the container it names.
	return append(cs, caller{name: "service SAS si=" + policyID, kind: "policy", perm: policyLetters[svc]})
}

// checkRow sends the row's request as every caller and checks the answers;
// it returns how many requests it sent.
func (m *matrix) checkRow(t *testing.T, svc string, row route.Rule, want rule) int {
	t.Helper()
	m.fixtures(t, svc)
	srt := want.srt
	if srt == 0 {
		srt = "sco"[levelResourceType(svc, row.Level)]
	}
	n := 0
	for _, c := range m.callers(svc, want) {
		req := m.request(t, svc, row, c)
		m.sign(t, svc, req, c, srt)
		resp, err := m.client.Do(req)
		if err != nil {
			t.Fatalf("%s %s as %s: %v", svc, row.Op, c.name, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		n++
		code := resp.Header.Get("X-Ms-Error-Code")
		// The access log names the row's operation (requests refused before
		// routing, by authentication, name none).
		if op := m.ops.op(resp.Header.Get("X-Ms-Request-Id")); op != row.Op && (op != "" || c.kind == "sharedkey") {
			t.Errorf("%s %s %s as %s: the access log names %q", svc, row.Method, row.Op, c.name, op)
		}
		o := expect(svc, want, srt, c, row.Level == route.Object)
		if !o.check(svc, resp.StatusCode, code) {
			t.Errorf("%s %s %s (%s) as %s: got %d %s, want %s", svc, row.Method, row.Op, req.URL.Path, c.name, resp.StatusCode, code, o)
		}
	}
	return n
}

func (o outcome) String() string {
	if o.allowed {
		return "not denied"
	}
	return fmt.Sprintf("%d %v", o.status, o.codes)
}

// expect is the answer the pages give caller c for an operation needing
// want, of resource type srt; onObject says the row addresses the blob or
// file itself (its path), which a blob or file SAS reaches.
func expect(svc string, want rule, srt byte, c caller, onObject bool) outcome {
	const forbidden = http.StatusForbidden
	if want.kind == "oauth" {
		// "Only authentication scheme Bearer is supported."
		return deny(forbidden, "AuthenticationFailed")
	}
	switch c.kind {
	case "sharedkey":
		return allow()
	case "wrongkey":
		return deny(forbidden, "AuthenticationFailed")
	case "anonymous":
		return expectAnonymous(svc, want, srt, c)
	}
	if c.kind == "object" && !onObject {
		// Signed for one blob or file: the signature names another
		// resource than the container or directory addressed.
		return deny(forbidden, "AuthenticationFailed")
	}
	if want.kind == "key" {
		// "Only the account owner may call this operation."
		return deny(forbidden, "AuthorizationFailure")
	}
	switch c.kind {
	case "expired", "future", "expired service":
		return deny(forbidden, "AuthenticationFailed")
	case "ip":
		return deny(forbidden, "AuthorizationSourceIPMismatch")
	case "https":
		return deny(forbidden, "AuthorizationProtocolMismatch")
	}
	if want.kind == "parts" {
		return allow()
	}
	switch c.kind {
	case "wrongss":
		return deny(forbidden, "AuthorizationServiceMismatch")
	case "wrongsrt":
		if want.anySRT {
			return allow()
		}
		return deny(forbidden, "AuthorizationResourceTypeMismatch")
	case "object":
		if !want.serviceSAS {
			return deny(forbidden, "AuthenticationFailed", "AuthorizationFailure", "AuthorizationResourceTypeMismatch")
		}
	case "service", "policy":
		if !want.serviceSAS || srt == 's' {
			// Out of a service SAS's reach: its signature names another
			// resource, or its scope is not the operation's.
			return deny(forbidden, "AuthenticationFailed", "AuthorizationFailure", "AuthorizationResourceTypeMismatch")
		}
	}
	o := deny(forbidden, "AuthorizationPermissionMismatch")
	if grants(c.perm, want) {
		if want.replace == "" || strings.ContainsAny(c.perm, want.replace) {
			return allow()
		}
		// Creating is granted, replacing is not: the answer depends on
		// whether the target exists (TestCreateOnlySASCannotOverwrite
		// in package blob pins both); Blob names the refusal
		// UnauthorizedBlobOverwrite.
		o = deny(forbidden, "AuthorizationPermissionMismatch", "UnauthorizedBlobOverwrite")
		o.either = true
	}
	return o
}

// grants reports whether the letters sp grant an operation needing want.
func grants(sp string, want rule) bool {
	if want.kind == "any" {
		return sp != ""
	}
	return strings.ContainsAny(sp, want.perm) && (want.also == "" || strings.ContainsAny(sp, want.also))
}

func expectAnonymous(svc string, want rule, srt byte, c caller) outcome {
	switch {
	case want.kind == "parts":
		// A table batch is refused whole.
		return deny(http.StatusForbidden, "AuthorizationFailure")
	case want.public != "" && want.kind != "key" && publicRank(c.public) >= publicRank(want.public):
		return allow()
	case svc == "blob" && srt != 's' && want.perm != "" && want.kind != "any" && strings.Trim(want.perm, "rl") == "":
		// Reads of a private container or blob: as if it did not exist.
		return deny(http.StatusNotFound, "ResourceNotFound")
	}
	return deny(http.StatusUnauthorized, "NoAuthenticationInformation")
}

func publicRank(level string) int {
	return map[string]int{"": 0, "blob": 1, "container": 2}[level]
}

// levelResourceType is the account SAS resource type (0 s, 1 c, 2 o) of a
// route level of the service.
func levelResourceType(svc string, level route.Level) int {
	if level == route.Service {
		return 0
	}
	if level == route.Container && svc != "table" {
		return 1
	}
	return 2
}

// sign adds c's credentials to req.
func (m *matrix) sign(t *testing.T, svc string, req *http.Request, c caller, srt byte) {
	now := m.in.Clock.Now().UTC()
	req.Header.Set("X-Ms-Date", now.Format(http.TimeFormat))
	req.Header.Set("X-Ms-Version", requestVersion)
	switch c.kind {
	case "anonymous":
		return
	case "sharedkey":
		auth.SignSharedKey(req, auth.Service(svc), lazulitest.Account, lazulitest.KeyBytes())
		return
	case "wrongkey":
		auth.SignSharedKey(req, auth.Service(svc), lazulitest.Account, []byte("not the account key"))
		return
	}
	start, expiry := now.Add(-time.Hour), now.Add(time.Hour)
	switch c.kind {
	case "expired", "expired service":
		start, expiry = now.Add(-2*time.Hour), now.Add(-time.Hour)
	case "future":
		start, expiry = now.Add(time.Hour), now.Add(2*time.Hour)
	}
	f := sasFields{sp: c.perm, st: start.Format(time.RFC3339), se: expiry.Format(time.RFC3339)}
	if c.kind == "policy" {
		f = sasFields{si: policyID}
	}
	switch c.kind {
	case "ip":
		f.sip = "203.0.113.7"
	case "https":
		f.spr = "https"
	}
	q := req.URL.Query()
	if c.kind == "service" || c.kind == "expired service" || c.kind == "policy" || c.kind == "object" {
		m.signService(svc, q, f, c.kind == "object")
	} else {
		ss, rt := serviceLetter(svc), string(srt)
		switch c.kind {
		case "wrongss":
			ss = strings.ReplaceAll("bqtf", ss, "")
		case "wrongsrt":
			rt = strings.ReplaceAll("sco", rt, "")
		}
		f.set(q)
		q.Set("ss", ss)
		q.Set("srt", rt)
		q.Set("sig", hmacBase64(strings.Join([]string{lazulitest.Account, f.sp, ss, rt, f.st, f.se, f.sip, f.spr, sasVersion}, "\n")+"\n"))
	}
	req.URL.RawQuery = q.Encode()
}

type sasFields struct{ sp, st, se, si, sip, spr string }

func (f sasFields) set(q url.Values) {
	q.Set("sv", sasVersion)
	for name, v := range map[string]string{"sp": f.sp, "st": f.st, "se": f.se, "si": f.si, "sip": f.sip, "spr": f.spr} {
		if v != "" {
			q.Set(name, v)
		}
	}
}

// signService signs a service SAS for the matrix's container, queue, table
// or share, in the layouts of the "Create a service SAS" page
// or share; with object, for the matrix's blob or file only (sr=b, sr=f).
func (m *matrix) signService(svc string, q url.Values, f sasFields, object bool) {
	f.set(q)
	head := []string{f.sp, f.st, f.se}
	network := []string{f.si, f.sip, f.spr, sasVersion}
	var fields []string
	switch svc {
	case "blob":
		sr, resource := "c", "/blob/"+lazulitest.Account+"/"+privateContainer
		if object {
			sr, resource = "b", resource+"/"+blobName
		}
		q.Set("sr", sr)
		fields = append(append(head, resource), network...)
		fields = append(fields, sr, "", "", "", "", "", "") // sr, snapshot time, rscc..rsct
	case "file":
		sr, resource := "s", "/file/"+lazulitest.Account+"/"+shareName
		if object {
			sr, resource = "f", resource+"/d/f"
		}
		q.Set("sr", sr)
		fields = append(append(head, resource), network...)
		fields = append(fields, "", "", "", "", "")
	case "queue":
		fields = append(append(head, "/queue/"+lazulitest.Account+"/"+queueName), network...)
	case "table":
		q.Set("tn", tableName)
		fields = append(append(head, "/table/"+lazulitest.Account+"/"+tableName), network...)
		fields = append(fields, "", "", "", "")
	}
	q.Set("sig", hmacBase64(strings.Join(fields, "\n")))
}

func hmacBase64(s string) string {
	mac := hmac.New(sha256.New, lazulitest.KeyBytes())
	mac.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func serviceLetter(svc string) string {
	return map[string]string{"blob": "b", "queue": "q", "table": "t", "file": "f"}[svc]
}
