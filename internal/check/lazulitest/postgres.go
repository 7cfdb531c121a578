package lazulitest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresDatabase creates a new, empty database on the PostgreSQL server
// at serverURL (for instance pgtest.URL(t)) and returns the URL that names
// it, ready for Options.Store; the database is dropped when t ends. A
// database of its own per test lets Lazuli keep its tables in the default
// schema, exactly as lazuli --store postgres://... does, without tests
// seeing each other's data. Register it before starting the instances that
// use it, so that they are stopped before the drop.
func PostgresDatabase(t testing.TB, serverURL string) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := "lzt_" + hex.EncodeToString(b[:])
	dbURL, err := withDatabase(serverURL, name)
	if err != nil {
		t.Fatalf("lazulitest: %v", err)
	}
	if err := admin(serverURL, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("lazulitest: %v", err)
	}
	t.Cleanup(func() {
		if err := admin(serverURL, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("lazulitest: %v", err)
		}
	})
	return dbURL
}

// withDatabase returns serverURL (a postgres:// URL or a key=value DSN)
// naming database name instead of its own.
func withDatabase(serverURL, name string) (string, error) {
	if !strings.Contains(serverURL, "://") {
		return serverURL + " dbname=" + name, nil
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// admin runs one statement on the server's own database.
func admin(serverURL, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}
