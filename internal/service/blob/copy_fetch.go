package blob

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/fetchguard"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blob/byterange"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// fetched is what a copy read from a source URL: its bytes in a new extent
// ("" when empty) and the properties the source answered with.
type fetched struct {
	extent string
	size   int64
	md5    [16]byte
	crc    []byte // CRC-64 of the bytes, when the request declared one
	props  contentprops.Props
	meta   metadata.Set
	// tags are the source's tags, read only for
	// x-ms-copy-source-tag-option: COPY (fetchSourceTags).
	tags blobdata.TagSet
}

// segments is the fetched content as a blob's content.
func (f *fetched) segments() []blobdata.Segment {
	if f.extent == "" {
		return nil
	}
	return []blobdata.Segment{{Extent: f.extent, Length: f.size}}
}

// fetchSource GETs a source URL (a byte range of it when rng is not nil)
// into a new extent of at most limit bytes, verifying the checksums the
// request declared for the source's bytes. A server that ignores the
// range and answers the whole content has the range cut out of it. A source of this server's File
// service in the caller's account is signed with the account key when the
// request itself was Shared Key, as the service accepts for sources in the
// same account; any other source must carry its own authorization.
func (s *Service) fetchSource(r *http.Request, src copySource, rng *byterange.Range, limit int64, sums checksums) (*fetched, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, src.url.String(), nil)
	if err != nil {
		return nil, azerr.InvalidHeader("x-ms-copy-source", src.raw)
	}
	if rng != nil {
		spec := "bytes=" + strconv.FormatInt(rng.Start, 10) + "-"
		if rng.End >= 0 {
			spec += strconv.FormatInt(rng.End, 10)
		}
		req.Header.Set("X-Ms-Range", spec)
		req.Header.Set("Range", spec)
	}
	if src.authorization != "" {
		req.Header.Set("Authorization", src.authorization)
		req.Header.Set("X-Ms-Version", request.Of(r).Version)
	} else {
		s.signFileSource(r, src, req)
	}
	resp, err := s.askSource(req, src)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	length := resp.ContentLength
	var in io.Reader = resp.Body
	if rng != nil && resp.StatusCode == http.StatusOK {
		if in, length, err = cutRange(resp.Body, length, *rng); err != nil {
			return nil, err
		}
	}
	if length > limit {
		return nil, sourceTooLarge(limit)
	}
	body := sums.copied().wrap(in)
	info, err := s.extents.Write(r.Context(), body, limit)
	switch {
	case errors.Is(err, extent.ErrTooLarge):
		return nil, sourceTooLarge(limit)
	case err != nil:
		return nil, err
	case length >= 0 && info.Size != length:
		return nil, copySourceError(http.StatusBadGateway, "", "The copy source ended before its Content-Length.")
	}
	f := &fetched{size: info.Size, md5: info.MD5, crc: body.crc(), props: contentprops.FromResponse(resp.Header), meta: metadata.FromResponse(resp.Header)}
	if err := sums.verify(info.MD5, f.crc); err != nil {
		return nil, err
	}
	if info.Size > 0 {
		f.extent = info.ID
	}
	return f, nil
}

// askSource sends a request to a source outside this Blob service and
// returns its successful answer; a refused address, an unreachable source
// or an error answer is the copy's error.
func (s *Service) askSource(req *http.Request, src copySource) (*http.Response, error) {
	if err := s.sources.CheckURL(src.url.Hostname()); err != nil {
		return nil, err
	}
	resp, err := s.fetcher.Do(req)
	if err != nil {
		if refused := fetchguard.Refusal(err, src.url.Host); refused != nil {
			return nil, refused
		}
		// The service answers a source it cannot reach with
		// CannotVerifyCopySource, "Could not verify the copy source within
		// the specified time." (status 500 in its error table); this server
		// keeps 500 for its own faults and answers 502, as a gateway whose
		// upstream failed.
		return nil, copySourceError(http.StatusBadGateway, "",
			fmt.Sprintf("Could not verify the copy source within the specified time: %v", err))
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent {
		resp.Body.Close()
		status := resp.StatusCode
		if status < 400 || status >= 500 {
			status = http.StatusBadGateway
		}
		return nil, copySourceError(status, resp.Header.Get("X-Ms-Error-Code"),
			fmt.Sprintf("The copy source answered %d.", resp.StatusCode))
	}
	return resp, nil
}

// askSourceAbout sends a request about a source blob outside this Blob
// service: its URL with the extra query parameters, under the source's
// authorization (the URL's SAS, or x-ms-copy-source-authorization).
func (s *Service) askSourceAbout(r *http.Request, src copySource, method string, extra url.Values) (*http.Response, error) {
	u := *src.url
	q := u.Query()
	for k, v := range extra {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(r.Context(), method, u.String(), nil)
	if err != nil {
		return nil, azerr.InvalidHeader("x-ms-copy-source", src.raw)
	}
	req.Header.Set("X-Ms-Version", request.Of(r).Version)
	if src.authorization != "" {
		req.Header.Set("Authorization", src.authorization)
	}
	return s.askSource(req, src)
}

// fetchSourceTags reads the tags of a source outside this Blob service
// (x-ms-copy-source-tag-option: COPY) with Get Blob Tags on its URL, under
// the authorization the content fetch uses: the URL's SAS (which the
// source's service requires to grant the tags permission) or
// x-ms-copy-source-authorization.
func (s *Service) fetchSourceTags(r *http.Request, src copySource) (blobdata.TagSet, error) {
	resp, err := s.askSourceAbout(r, src, http.MethodGet, url.Values{"comp": {"tags"}})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTagsBody+1))
	if err != nil {
		return nil, copySourceError(http.StatusBadGateway, "", fmt.Sprintf("Reading the copy source's tags failed: %v", err))
	}
	tags, err := parseTagsBody(body)
	if err != nil || len(body) > maxTagsBody {
		return nil, copySourceError(http.StatusBadGateway, "", "The copy source's tags are not a valid Get Blob Tags answer.")
	}
	return tags, nil
}

// cutRange reads the requested range out of a whole content of the given
// length (-1 when unknown).
func cutRange(body io.Reader, length int64, rng byterange.Range) (io.Reader, int64, error) {
	if length >= 0 {
		offset, n, err := rng.Resolve(length)
		if err != nil {
			return nil, 0, azerr.New(azerr.InvalidRange)
		}
		rng.Start, length = offset, n
	} else if rng.End >= 0 {
		length = rng.End - rng.Start + 1
	}
	if _, err := io.CopyN(io.Discard, body, rng.Start); err != nil {
		return nil, 0, azerr.New(azerr.InvalidRange)
	}
	if length < 0 {
		return body, -1, nil
	}
	return io.LimitReader(body, length), length, nil
}

// signFileSource signs a request for a file of this server's File service
// (same machine, another port) in the caller's own account.
func (s *Service) signFileSource(r *http.Request, src copySource, req *http.Request) {
	id := request.Of(r).Identity
	if src.hasSAS() || id == nil || id.Kind != auth.SharedKey {
		return
	}
	reqHost, _ := hostPort(r.Host, r.TLS != nil)
	srcHost, _ := hostPort(src.url.Host, src.url.Scheme == "https")
	account, _, _ := strings.Cut(strings.TrimPrefix(src.url.Path, "/"), "/")
	if !sameMachine(reqHost, srcHost) || account != id.Account {
		return
	}
	acct, ok := s.authn.Accounts.Lookup(account)
	if !ok || len(acct.Keys) == 0 {
		return
	}
	req.Header.Set("X-Ms-Version", request.Of(r).Version)
	req.Header.Set("X-Ms-Date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, auth.File, account, acct.Keys[0])
}

// sourceTooLarge is the answer for a source past an operation's limit.
func sourceTooLarge(limit int64) error {
	return azerr.Newf(azerr.CannotVerifyCopySource, "The copy source is larger than %d bytes, the most this operation copies.", limit).
		WithStatus(http.StatusConflict)
}
