package blob

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// getServiceProperties is Get Blob Service Properties.
func (s *Service) getServiceProperties(w http.ResponseWriter, r *http.Request) error {
	p, err := svcprops.Get(r.Context(), s.store, request.Of(r).Account, string(auth.Blob))
	if err != nil {
		return err
	}
	body := blobdata.WithVersioningDefault(p, s.versioningDefault).Marshal()
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}

// setServiceProperties is Set Blob Service Properties: the elements present
// replace the stored ones (202 Accepted, as the service answers).
func (s *Service) setServiceProperties(w http.ResponseWriter, r *http.Request) error {
	p, err := svcprops.Parse(r.Body)
	if err != nil {
		return err
	}
	if err := svcprops.Set(r.Context(), s.store, request.Of(r).Account, string(auth.Blob), p); err != nil {
		return err
	}
	return write(w, http.StatusAccepted)
}

// getServiceStats is Get Blob Service Stats. A single node has no
// replication lag: the secondary is always live and synced now.
func (s *Service) getServiceStats(w http.ResponseWriter, r *http.Request) error {
	x := newXMLWriter()
	x.Open("StorageServiceStats")
	x.Open("GeoReplication")
	x.Elem("Status", "live")
	x.Elem("LastSyncTime", httpTime(s.now()))
	x.Close("GeoReplication")
	x.Close("StorageServiceStats")
	return x.Send(w, http.StatusOK)
}

// getAccountInfo is Get Account Information: a general-purpose v2 account
// with read-access geo-redundant storage, as the emulator's account is
// presented, with a hierarchical namespace when --hnsAccounts names it.
func (s *Service) getAccountInfo(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	sku := "Standard_RAGRS"
	if s.isPremium(r) {
		sku = "Premium_LRS"
	}
	h.Set("X-Ms-Sku-Name", sku)
	h.Set("X-Ms-Account-Kind", "StorageV2")
	h.Set("X-Ms-Is-Hns-Enabled", strconv.FormatBool(s.isHNS(r)))
	return write(w, http.StatusOK)
}
