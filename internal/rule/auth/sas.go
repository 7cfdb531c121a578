package auth

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// SAS holds the query parameters of a shared access signature, decoded.
// Fields of a kind of SAS that does not use them are empty.
type SAS struct {
	Version         string // sv
	Services        string // ss: account SAS services (b, q, t, f)
	ResourceTypes   string // srt: account SAS resource types (s, c, o)
	Resource        string // sr: service SAS scope (blob b, bs, bv, c, d; file f, s)
	Permissions     string // sp
	Start, Expiry   time.Time
	IP              string // sip as sent: one address or "from-to"
	Protocol        string // spr: "https" or "https,http"
	Identifier      string // si: stored access policy
	EncryptionScope string // ses
	DirectoryDepth  int    // sdd, with sr=d
	TableName       string // tn
	StartPK         string // spk
	StartRK         string // srk
	EndPK           string // epk
	EndRK           string // erk
	// Response header overrides of a blob or file service SAS.
	CacheControl       string // rscc
	ContentDisposition string // rscd
	ContentEncoding    string // rsce
	ContentLanguage    string // rscl
	ContentType        string // rsct
	Signature          string // sig
	// Delegation is set for a user delegation SAS (skoid, sktid, ...).
	Delegation *Delegation

	// SignedContainer and SignedObject are the resource a service SAS was
	// signed for: the container, queue, table or share, and for sr=b, bs, bv
	// and f the blob or file path, for sr=d the directory.
	SignedContainer, SignedObject string

	start, expiry string // st and se as sent: they are signed verbatim
	ipFrom, ipTo  netip.Addr
}

// IsAccount reports whether this is an account SAS.
func (s *SAS) IsAccount() bool { return s.Services != "" || s.ResourceTypes != "" }

// ResponseHeaders returns the response headers a blob or file service SAS
// overrides (rscc, rscd, rsce, rscl, rsct), for reads to apply.
func (s *SAS) ResponseHeaders() http.Header {
	h := http.Header{}
	for name, v := range map[string]string{
		"Cache-Control":       s.CacheControl,
		"Content-Disposition": s.ContentDisposition,
		"Content-Encoding":    s.ContentEncoding,
		"Content-Language":    s.ContentLanguage,
		"Content-Type":        s.ContentType,
	} {
		if v != "" {
			h.Set(name, v)
		}
	}
	return h
}

// sasFields are the query parameters a SAS is made of.
var sasFields = []string{"sv", "ss", "srt", "sr", "sp", "sip", "spr", "si", "ses", "tn", "spk", "srk", "epk", "erk",
	"rscc", "rscd", "rsce", "rscl", "rsct", "sig", "st", "se", "sdd", "skoid", "sktid", "skt", "ske", "sks", "skv",
	"saoid", "suoid", "scid", "sduoid", "skdutid"}

// refuseRepeatedSASFields answers 403 AuthenticationFailed for a SAS field
// given twice: the signature covers one value, and a second one (a second
// sig, a second sp) must not be read by any part of the server.
func refuseRepeatedSASFields(q url.Values) error {
	for _, name := range sasFields {
		if len(q[name]) > 1 {
			return authFailed(name + " is given more than once.")
		}
	}
	return nil
}

var versionFormat = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// Oldest versions accepted: the first with service SAS for queues and tables,
// and the first with account SAS.
const (
	minServiceSASVersion = "2012-02-12"
	minAccountSASVersion = "2015-04-05"
)

// parseSAS reads and validates the SAS parameters of q. It checks form only;
// the signature is verified separately. Errors are 403 AuthenticationFailed
// with a detail naming the field, as the service answers a malformed SAS.
func parseSAS(q url.Values, svc Service) (*SAS, error) {
	if err := refuseRepeatedSASFields(q); err != nil {
		return nil, err
	}
	s := &SAS{
		Version: q.Get("sv"), Services: q.Get("ss"), ResourceTypes: q.Get("srt"), Resource: q.Get("sr"),
		Permissions: q.Get("sp"), IP: q.Get("sip"), Protocol: q.Get("spr"), Identifier: q.Get("si"),
		EncryptionScope: q.Get("ses"), TableName: q.Get("tn"),
		StartPK: q.Get("spk"), StartRK: q.Get("srk"), EndPK: q.Get("epk"), EndRK: q.Get("erk"),
		CacheControl: q.Get("rscc"), ContentDisposition: q.Get("rscd"), ContentEncoding: q.Get("rsce"),
		ContentLanguage: q.Get("rscl"), ContentType: q.Get("rsct"), Signature: q.Get("sig"),
		start: q.Get("st"), expiry: q.Get("se"),
	}
	if s.Signature == "" {
		return nil, authFailed("sig is mandatory. Cannot be empty")
	}
	if err := s.parseCommon(); err != nil {
		return nil, err
	}
	if q.Has("skoid") || q.Has("sktid") {
		var err error
		if s.Delegation, err = parseDelegation(q, s); err != nil {
			return nil, err
		}
	}
	if s.IsAccount() {
		return s, s.checkAccount()
	}
	return s, s.checkService(q, svc)
}

// parseCommon validates the fields every SAS has.
func (s *SAS) parseCommon() error {
	if s.Version == "" {
		return authFailed("sv is mandatory. Cannot be empty")
	}
	if !versionFormat.MatchString(s.Version) {
		return authFailed(fmt.Sprintf("sv '%s' is not a valid version (YYYY-MM-DD).", s.Version))
	}
	var err error
	if s.Start, err = parseSASTime("st", s.start); err != nil {
		return err
	}
	if s.Expiry, err = parseSASTime("se", s.expiry); err != nil {
		return err
	}
	if err := s.parseIP(); err != nil {
		return err
	}
	switch s.Protocol {
	case "", "https", "https,http", "http,https":
	default:
		return authFailed(fmt.Sprintf("spr '%s' is not a valid signed protocol: use https or https,http.", s.Protocol))
	}
	return nil
}

func (s *SAS) checkAccount() error {
	if s.Version < minAccountSASVersion {
		return authFailed(fmt.Sprintf("sv '%s' does not support account SAS (the first version that does is %s).", s.Version, minAccountSASVersion))
	}
	for _, f := range []struct{ name, v string }{{"ss", s.Services}, {"srt", s.ResourceTypes}, {"sp", s.Permissions}, {"se", s.expiry}} {
		if f.v == "" {
			return authFailed(f.name + " is mandatory. Cannot be empty")
		}
	}
	if strings.Trim(s.Services, "bqtf") != "" {
		return authFailed(fmt.Sprintf("ss '%s' is not valid: use the letters b, q, t and f.", s.Services))
	}
	if strings.Trim(s.ResourceTypes, "sco") != "" {
		return authFailed(fmt.Sprintf("srt '%s' is not valid: use the letters s, c and o.", s.ResourceTypes))
	}
	return nil
}

// validResources lists the sr values each service accepts; queue and table
// service SAS have no sr.
var validResources = map[Service]string{Blob: "b bs bv c d", File: "f s"}

func (s *SAS) checkService(q url.Values, svc Service) error {
	if s.Version < minServiceSASVersion {
		return authFailed(fmt.Sprintf("sv '%s' is older than %s, the oldest version supported for a service SAS.", s.Version, minServiceSASVersion))
	}
	if s.Identifier == "" {
		if s.Permissions == "" {
			return authFailed("sp is mandatory. Cannot be empty")
		}
		if s.expiry == "" {
			return authFailed("se is mandatory. Cannot be empty")
		}
	}
	switch svc {
	case Blob, File:
		if s.Resource == "" {
			return authFailed("sr is mandatory. Cannot be empty")
		}
		if !containsWord(validResources[svc], s.Resource) {
			return authFailed(fmt.Sprintf("sr '%s' is not a valid signed resource for the %s service.", s.Resource, svc))
		}
	case Table:
		if s.TableName == "" {
			return authFailed("tn is mandatory. Cannot be empty")
		}
		if s.StartRK != "" && s.StartPK == "" || s.EndRK != "" && s.EndPK == "" {
			return authFailed("srk and erk need spk and epk: a row key bound applies within a partition key bound.")
		}
	}
	if s.Resource == "d" {
		depth, err := strconv.Atoi(q.Get("sdd"))
		if err != nil || depth < 0 {
			return authFailed(fmt.Sprintf("sdd '%s' is not a valid directory depth; it is mandatory with sr=d.", q.Get("sdd")))
		}
		s.DirectoryDepth = depth
	}
	return nil
}

func containsWord(list, w string) bool {
	for _, x := range strings.Fields(list) {
		if x == w {
			return true
		}
	}
	return false
}

// parseSASTime parses st or se: ISO 8601 UTC with or without fractional
// seconds, minutes precision, or a date alone.
func parseSASTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, authFailed(fmt.Sprintf("%s '%s' is not a valid ISO 8601 time.", name, v))
}

// parseIP parses sip: one address or an inclusive "from-to" range.
func (s *SAS) parseIP() error {
	if s.IP == "" {
		return nil
	}
	from, to, isRange := strings.Cut(s.IP, "-")
	if !isRange {
		to = from
	}
	a, err1 := netip.ParseAddr(from)
	b, err2 := netip.ParseAddr(to)
	a, b = a.Unmap(), b.Unmap()
	if err1 != nil || err2 != nil || a.Is4() != b.Is4() || b.Less(a) {
		return authFailed(fmt.Sprintf("sip '%s' is not a valid IP address or range.", s.IP))
	}
	s.ipFrom, s.ipTo = a, b
	return nil
}

// allowsIP reports whether ip is inside sip (always true without sip).
func (s *SAS) allowsIP(ip netip.Addr) bool {
	if s.IP == "" {
		return true
	}
	return ip.IsValid() && ip.Is4() == s.ipFrom.Is4() && !ip.Less(s.ipFrom) && !s.ipTo.Less(ip)
}
