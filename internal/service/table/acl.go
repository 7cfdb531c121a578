package table

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
)

func (s *Service) getACL(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	var rec *tableRecord
	err := s.st.View(r.Context(), func(tx store.Tx) error {
		var err error
		rec, err = loadTable(tx, info.Account, t.table)
		return err
	})
	if err != nil {
		return err
	}
	x := xmlw.New(xmlw.DeclLine, xmlw.Standard)
	accesspolicy.Write(x, rec.ACL)
	body := x.Bytes()
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write(body)
	return err
}

func (s *Service) setACL(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	policies, err := accesspolicy.Read(r, accesspolicy.TableLetters)
	if err != nil {
		return err
	}
	err = s.st.Update(r.Context(), func(tx store.Tx) error {
		rec, err := loadTable(tx, info.Account, t.table)
		if err != nil {
			return err
		}
		rec.ACL = policies
		return saveTable(tx, info.Account, rec)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
