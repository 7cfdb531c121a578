package blob

import (
	"bytes"
	"crypto/md5"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/crc64"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blob/blocklist"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// putBlockListArgs is a parsed Put Block List request.
type putBlockListArgs struct {
	conds    conditions
	props    contentprops.Props
	metadata metadata.Set
	tier     string
	tags     blobdata.TagSet
	entries  []blocklist.Entry
	bodyMD5  [16]byte
	bodyCRC  []byte
}

func parsePutBlockList(r *http.Request) (putBlockListArgs, error) {
	var a putBlockListArgs
	var err error
	if a.conds, err = parseBlobRequest(r, cond.AllConditions); err != nil {
		return a, err
	}
	if a.tags, err = parseTagsHeader(r.Header.Get("X-Ms-Tags")); err != nil {
		return a, err
	}
	if a.props, a.metadata, err = parseNewBlobHeaders(r.Header, false); err != nil {
		return a, err
	}
	if a.tier, err = parseTier(r.Header); err != nil {
		return a, err
	}
	sums, err := parseChecksums(r.Header)
	if err != nil {
		return a, err
	}
	body, err := request.ReadBody(r, blocklist.MaxBodyBytes)
	if err != nil {
		return a, err
	}
	a.bodyMD5 = md5.Sum(body)
	if sums.crc64 != nil {
		a.bodyCRC = crc64.Bytes(body)
	}
	if err := sums.verify(a.bodyMD5, a.bodyCRC); err != nil {
		return a, err
	}
	a.entries, err = blocklist.Parse(bytes.NewReader(body))
	return a, err
}

// putBlockList is Put Block List: it commits the listed blocks, taken from
// the committed list, the uncommitted list, or the latest of the two, as
// extent segments (no bytes are copied). Every uncommitted block is then
// discarded, and the properties and metadata replaced.
func (s *Service) putBlockList(w http.ResponseWriter, r *http.Request) error {
	a, err := parsePutBlockList(r)
	if err != nil {
		return err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	rec, err := s.writeBlobAs(r, a.conds, blobdata.WriteReplace, func(tx store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		if old != nil && old.Type != blobdata.BlockBlob {
			return nil, azerr.New(azerr.InvalidBlobType)
		}
		segs, err := resolveBlocks(tx, account, t, old, a.entries, keyOf(r).SHA256)
		if err != nil {
			return nil, err
		}
		rec, err := s.replaced(tx, r, old, refs)
		if err != nil {
			return nil, err
		}
		rec.Props, rec.Metadata = a.props, a.metadata
		rec.SetTier(a.tier, s.now())
		rec.Tags = a.tags
		rec.SetSegments(segs)
		refs.AddSegments(segs)
		return rec, nil
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	bothDigests.setHeaders(h, a.bodyMD5, a.bodyCRC)
	setRequestEncrypted(h, r)
	return write(w, http.StatusCreated)
}

// resolveBlocks maps a block list to segments: Committed entries must name
// a committed block, Uncommitted ones an uncommitted block, Latest ones
// either (the uncommitted one wins); anything else is 400 InvalidBlockList.
// An uncommitted block staged under a customer-provided key needs that key
// (keyHash, the request's): without it 409
// BlobUsesCustomerSpecifiedEncryption, as azure-sdk-for-python's recorded
// test_cpk.test_put_block_from_url_and_commit answers, with another the
// mismatch.
func resolveBlocks(tx store.Tx, account string, t target, old *blobdata.Blob, entries []blocklist.Entry, keyHash string) ([]blobdata.Segment, error) {
	committed := map[string]blobdata.Segment{}
	staged := map[string]blobdata.Block{}
	if old != nil {
		if old.Committed {
			segs, err := old.Segments()
			if err != nil {
				return nil, err
			}
			for _, s := range segs {
				if s.BlockID != "" {
					committed[s.BlockID] = s
				}
			}
		}
		if old.HasUncommitted {
			blocks, err := blobdata.LoadBlocks(tx, account, t.Container, t.Blob)
			if err != nil {
				return nil, err
			}
			for _, b := range blocks {
				staged[b.ID] = b
			}
		}
	}
	segs := make([]blobdata.Segment, 0, len(entries))
	for _, e := range entries {
		u, isStaged := staged[e.ID]
		c, isCommitted := committed[e.ID]
		switch {
		case isStaged && (e.Kind == blocklist.Uncommitted || e.Kind == blocklist.Latest):
			if err := u.CheckKey(keyHash); err != nil {
				return nil, err
			}
			segs = append(segs, blobdata.Segment{Extent: u.Extent, Length: u.Size, BlockID: e.ID})
		case isCommitted && (e.Kind == blocklist.Committed || e.Kind == blocklist.Latest):
			segs = append(segs, c)
		default:
			return nil, azerr.New(azerr.InvalidBlockList)
		}
	}
	return segs, nil
}
