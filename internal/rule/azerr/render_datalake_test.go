package azerr

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"
)

// TestDataLakeBody pins the dfs endpoint's error form: a JSON object with
// one "error" member holding code and message, Content-Type
// application/json, and the code in x-ms-error-code as everywhere.
func TestDataLakeBody(t *testing.T) {
	at := time.Date(2020, 5, 18, 5, 51, 27, 335061400, time.UTC)
	got := string(Body(New(PathNotFound), "req-1", at, DataLake))
	want := `{"error":{"code":"PathNotFound","message":"The specified path does not exist.\nRequestId:req-1\nTime:2020-05-18T05:51:27.3350614Z"}}`
	if got != want {
		t.Fatalf("body:\n got %s\nwant %s", got, want)
	}
	w := httptest.NewRecorder()
	Renderer{Format: DataLake}.Write(w, httptest.NewRequest("PUT", "/fs/dir", nil), New(FilesystemNotFound))
	var doc struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatalf("body %s: %v", w.Body.String(), err)
	}
	if w.Code != 404 || doc.Error.Code != FilesystemNotFound || w.Header().Get(ErrorCodeHeader) != FilesystemNotFound ||
		w.Header().Get("Content-Type") != "application/json;charset=utf-8" {
		t.Fatalf("answer %d %s %v", w.Code, w.Body.String(), w.Header())
	}
}
