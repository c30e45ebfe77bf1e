package faulttest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func queryStatus(t *testing.T, url, id string) string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var status string
	if err := conn.QueryRow(context.Background(), `SELECT status FROM envelopes WHERE id = $1`, id).Scan(&status); err != nil {
		t.Fatal(err)
	}
	return status
}
