package lease

import (
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// useCell is one cell of a use-attempt table: "" for ok, else a 412 code.
type useCell string

const ok useCell = ""

// useRow is one attempt of a use table: a write or read with a lease ID.
type useRow struct {
	name  string
	write bool
	id    string
	cells []useCell
}

// blobUseTable is the use table of the "Lease Blob" page for kind k (the
// container table is identical with its own code names, and a share
// answers the container's: azure-sdk-for-net SessionRecords/
// ShareClientTests/SetMetadataAsync_LeaseFailed.json). Columns: Available,
// Leased (A), Breaking (A), Broken (A), Expired (A). The wrong-ID cells the
// documentation marks 409 are the 412 the real service answers.
func blobUseTable(k Kind) []useRow {
	notPresent := useCell(azerr.LeaseNotPresentWithBlobOperation)
	mismatch := useCell(azerr.LeaseIdMismatchWithBlobOperation)
	if k == Container || k == Share {
		notPresent = useCell(azerr.LeaseNotPresentWithContainerOperation)
		mismatch = useCell(azerr.LeaseIdMismatchWithContainerOperation)
	}
	const missing, lost = useCell(azerr.LeaseIdMissing), useCell(azerr.LeaseLost)
	return []useRow{
		{"write with (A)", true, idA, []useCell{notPresent, ok, ok, lost, lost}},
		{"write with (B)", true, idB, []useCell{notPresent, mismatch, mismatch, lost, lost}},
		{"write, no lease ID", true, "", []useCell{ok, missing, missing, ok, ok}},
		{"read with (A)", false, idA, []useCell{notPresent, ok, ok, lost, lost}},
		{"read with (B)", false, idB, []useCell{notPresent, mismatch, mismatch, lost, lost}},
		{"read, no lease ID", false, "", []useCell{ok, ok, ok, ok, ok}},
	}
}

// TestUseLeasedResource covers every cell of the use table for blobs,
// containers and shares.
func TestUseLeasedResource(t *testing.T) {
	for _, k := range []Kind{Blob, Container, Share} {
		for _, r := range blobUseTable(k) {
			for i, s := range leaseTableStates {
				t.Run(k.noun()+"/"+r.name+"/"+string(s), func(t *testing.T) {
					checkUse(t, inState(t, s, k), r, k, r.cells[i])
				})
			}
		}
	}
}

// TestUseLeasedFile covers every cell of Lease File's "Outcomes of use
// attempts on files by lease state" table.
func TestUseLeasedFile(t *testing.T) {
	notPresent := useCell(azerr.LeaseNotPresentWithBlobOperation)
	mismatch := useCell(azerr.LeaseIdMismatchWithBlobOperation)
	const missing, lost = useCell(azerr.LeaseIdMissing), useCell(azerr.LeaseLost)
	rows := []useRow{
		{"write with (A)", true, idA, []useCell{notPresent, ok, lost}},
		{"write with (B)", true, idB, []useCell{notPresent, mismatch, lost}},
		{"write, no lease ID", true, "", []useCell{ok, missing, ok}},
		{"read with (A)", false, idA, []useCell{notPresent, ok, lost}},
		{"read with (B)", false, idB, []useCell{notPresent, mismatch, lost}},
		{"read, no lease ID", false, "", []useCell{ok, ok, ok}},
	}
	for _, r := range rows {
		for i, s := range fileTableStates {
			t.Run(r.name+"/"+string(s), func(t *testing.T) {
				checkUse(t, inState(t, s, File), r, File, r.cells[i])
			})
		}
	}
}

func checkUse(t *testing.T, l Lease, r useRow, k Kind, want useCell) {
	t.Helper()
	var err error
	if r.write {
		err = l.CheckWrite(r.id, now, k)
	} else {
		err = l.CheckRead(r.id, now, k)
	}
	if want == ok {
		wantErr(t, err, 0, "")
		return
	}
	wantErr(t, err, 412, string(want))
}

// TestUseIDForms: the request's lease ID may be sent in any GUID form; a
// malformed one is 400 naming x-ms-lease-id.
func TestUseIDForms(t *testing.T) {
	leased := inState(t, Leased, Blob)
	for _, id := range []string{strings.ToUpper(idA), "{" + idA + "}", strings.ReplaceAll(idA, "-", "")} {
		if err := leased.CheckWrite(id, now, Blob); err != nil {
			t.Errorf("CheckWrite(%s): %v", id, err)
		}
		if err := leased.CheckRead(id, now, Blob); err != nil {
			t.Errorf("CheckRead(%s): %v", id, err)
		}
	}
	for _, l := range []Lease{{}, leased} {
		err := l.CheckWrite("not-a-guid", now, Blob)
		wantErr(t, err, 400, azerr.InvalidHeaderValue)
		if e, _ := azerr.As(err); e.Details[0].Value != HeaderID {
			t.Errorf("names %v", e.Details)
		}
		wantErr(t, l.CheckRead("not-a-guid", now, Blob), 400, azerr.InvalidHeaderValue)
	}
}

// TestUseMessagesNameTheResource: files reuse the blob codes and shares
// the container's, each with its own wording.
func TestUseMessagesNameTheResource(t *testing.T) {
	for _, k := range []Kind{Blob, Container, File, Share} {
		for _, err := range []error{
			Lease{}.CheckWrite(idA, now, k),
			inState(t, Leased, k).CheckWrite(idB, now, k),
		} {
			e, _ := azerr.As(err)
			if e == nil || !strings.HasSuffix(e.Message, "the "+k.noun()+".") {
				t.Errorf("%s: %v", k.noun(), err)
			}
		}
	}
}
