package auth

import (
	"net/url"
	"strings"
)

// accountSASStringToSign is the account SAS string-to-sign. Version
// 2020-12-06 added the encryption scope; both forms end with a newline.
func accountSASStringToSign(account string, s *SAS) string {
	fields := []string{account, s.Permissions, s.Services, s.ResourceTypes, s.start, s.expiry, s.IP, s.Protocol, s.Version}
	if s.Version >= "2020-12-06" {
		fields = append(fields, s.EncryptionScope)
	}
	return strings.Join(fields, "\n") + "\n"
}

// serviceSASStringToSign is the service SAS string-to-sign for resource (the
// canonicalized resource) and timestamp (the snapshot or version a blob SAS
// with sr=bs or bv is for), in the layout of the SAS version and service.
func serviceSASStringToSign(svc Service, s *SAS, resource, timestamp string) string {
	v := s.Version
	head := []string{s.Permissions, s.start, s.expiry, resource, s.Identifier}
	network := []string{s.IP, s.Protocol} // signed from 2015-04-05
	overrides := []string{s.CacheControl, s.ContentDisposition, s.ContentEncoding, s.ContentLanguage, s.ContentType}
	tableRange := []string{s.StartPK, s.StartRK, s.EndPK, s.EndRK}
	var fields []string
	switch {
	case svc == Queue && v >= "2015-04-05":
		fields = join(head, network, []string{v})
	case svc == Queue:
		fields = join(head, []string{v})
	case svc == Table && v >= "2015-04-05":
		fields = join(head, network, []string{v}, tableRange)
	case svc == Table:
		fields = join(head, []string{v}, tableRange)
	case svc == File && v >= "2015-04-05":
		fields = join(head, network, []string{v}, overrides)
	case svc == File:
		fields = join(head, []string{v}, overrides)
	case v >= "2020-12-06": // blob
		fields = join(head, network, []string{v, s.Resource, timestamp, s.EncryptionScope}, overrides)
	case v >= "2018-11-09":
		fields = join(head, network, []string{v, s.Resource, timestamp}, overrides)
	case v >= "2015-04-05":
		fields = join(head, network, []string{v}, overrides)
	case v >= "2013-08-15":
		fields = join(head, []string{v}, overrides)
	default:
		fields = join(head, []string{v})
	}
	return strings.Join(fields, "\n")
}

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// serviceScope is one reading of which resource a service SAS request
// targets: the container (queue, table, share) and the signed object.
type serviceScope struct {
	container, object string
}

// serviceScopes returns the resources the request may have been signed for.
// The request path is read both as path-style ("/account/container/...")
// and as production-style ("/container/..."), since only the middleware
// knows which it was and a container may share the account's name; the
// signature decides. A table SAS names its table in tn instead.
func serviceScopes(svc Service, s *SAS, u *url.URL, account string) []serviceScope {
	if svc == Table {
		return []serviceScope{{container: strings.ToLower(s.TableName)}}
	}
	path := strings.TrimPrefix(u.Path, "/")
	rests := []string{path}
	if first, rest, _ := strings.Cut(path, "/"); first == account || first == account+"-secondary" {
		rests = []string{rest, path}
	}
	var out []serviceScope
	for _, rest := range rests {
		container, object, _ := strings.Cut(rest, "/")
		if container == "" {
			continue
		}
		switch s.Resource {
		case "c", "s":
			out = append(out, serviceScope{container: container})
		case "d":
			if q := u.Query(); object == "" && q.Get("resource") == "filesystem" {
				// List Paths names its directory in the query, not the
				// path: a directory SAS lists that directory ("Create a
				// service SAS", sr=d; Hadoop's ABFS lists this way). The
				// dfs handler lists only under it; List Blobs, which has
				// no such parameter, gets no such reading. The other
				// filesystem operations take no service SAS at all.
				object = strings.Trim(q.Get("directory"), "/")
			}
			out = append(out, serviceScope{container: container, object: directoryPrefix(object, s.DirectoryDepth)})
		case "b", "bs", "bv", "f":
			if object == "" {
				continue
			}
			out = append(out, serviceScope{container, object})
			if svc == Blob && strings.Contains(object, `\`) {
				// The SDKs sign blob names with '\' replaced by '/'.
				out = append(out, serviceScope{container, strings.ReplaceAll(object, `\`, "/")})
			}
		default: // queue
			out = append(out, serviceScope{container: container})
		}
	}
	return out
}

// directoryPrefix is the first depth segments of a blob path: the directory
// a sr=d SAS with sdd=depth was signed for.
func directoryPrefix(object string, depth int) string {
	segs := strings.Split(object, "/")
	if depth < len(segs) {
		segs = segs[:depth]
	}
	return strings.Join(segs, "/")
}

// canonicalName is the service SAS canonicalized resource. From 2015-02-21
// it starts with the service name.
func canonicalName(svc Service, version, account string, sc serviceScope) string {
	name := "/" + account + "/" + sc.container
	if sc.object != "" {
		name += "/" + sc.object
	}
	if version >= "2015-02-21" {
		name = "/" + string(svc) + name
	}
	return name
}

// signedTimestamp is the snapshot or version a blob SAS is restricted to,
// taken from the request it authorizes.
func signedTimestamp(s *SAS, q url.Values) string {
	switch s.Resource {
	case "bs":
		return q.Get("snapshot")
	case "bv":
		return q.Get("versionid")
	}
	return ""
}
