package lease

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// CheckWrite guards an operation that needs the lease ID while the resource
// is leased (the use tables of the "Lease Blob", "Lease Container" and
// "Lease File" reference pages, learn.microsoft.com/rest/api/storageservices/lease-blob), given the request's
// x-ms-lease-id as sent ("" when absent; any GUID form, a malformed one is
// 400 InvalidHeaderValue):
//
//   - leased or breaking: the ID is required (412 LeaseIdMissing) and must
//     match (412 LeaseIdMismatchWith…Operation; the real service answers
//     412, not the 409 of the documentation's table);
//   - available: an ID is refused, 412 LeaseNotPresentWith…Operation;
//   - expired or broken: an ID is refused, 412 LeaseLost; without one the
//     write proceeds (and AfterWrite then forgets the old lease).
func (l Lease) CheckWrite(requestLeaseID string, now time.Time, k Kind) error {
	if requestLeaseID != "" {
		id, ok := ParseID(requestLeaseID)
		if !ok {
			return azerr.InvalidHeader(HeaderID, requestLeaseID)
		}
		requestLeaseID = id
	}
	switch l.State(now) {
	case Leased, Breaking:
		if requestLeaseID == "" {
			return azerr.New(azerr.LeaseIdMissing)
		}
		if requestLeaseID != l.ID {
			return mismatch(k)
		}
	case Available:
		if requestLeaseID != "" {
			return notPresent(k)
		}
	case Expired, Broken:
		if requestLeaseID != "" {
			return azerr.New(azerr.LeaseLost)
		}
	}
	return nil
}

// CheckRead guards a read. A read without a lease ID is a shared read and
// always allowed; one that carries an ID must name the active lease, with
// the same errors (and ID parsing) as CheckWrite.
func (l Lease) CheckRead(requestLeaseID string, now time.Time, k Kind) error {
	if requestLeaseID == "" {
		return nil
	}
	return l.CheckWrite(requestLeaseID, now, k)
}

// mismatch and notPresent: a share answers the container codes, worded
// for the file share (Azure's recorded answer to Set Share Metadata with a
// lease ID on an unleased share: 412 LeaseNotPresentWithContainerOperation,
// "There is currently no lease on the file share.", azure-sdk-for-net
// SessionRecords/ShareClientTests/SetMetadataAsync_LeaseFailed.json); a
// file answers the blob codes worded for the file.
func mismatch(k Kind) *azerr.Error {
	if k == Container || k == Share {
		return withNoun(azerr.New(azerr.LeaseIdMismatchWithContainerOperation), k,
			"The lease ID specified did not match the lease ID for the %s.")
	}
	return withNoun(azerr.New(azerr.LeaseIdMismatchWithBlobOperation), k,
		"The lease ID specified did not match the lease ID for the %s.")
}

func notPresent(k Kind) *azerr.Error {
	if k == Container || k == Share {
		return withNoun(azerr.New(azerr.LeaseNotPresentWithContainerOperation), k,
			"There is currently no lease on the %s.")
	}
	return withNoun(azerr.New(azerr.LeaseNotPresentWithBlobOperation), k,
		"There is currently no lease on the %s.")
}

// withNoun rewords an error for the resource it concerns: files and shares
// answer the blob's or the container's codes in their own words.
func withNoun(e *azerr.Error, k Kind, format string) *azerr.Error {
	if k == Blob {
		return e
	}
	return azerr.Newf(e.Code, format, k.noun())
}
