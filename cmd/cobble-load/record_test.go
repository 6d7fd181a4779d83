package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/testdb"
)

// TestRecorder: armed, the recorder keeps exactly the transactions that a
// batch begins with BEGIN, up to their COMMIT, with their arguments; it
// leaves out statements outside them, a transaction rolled back, and all
// that runs while it is disarmed. A replay of a recorded transaction runs
// its statements and leaves the database as it was.
func TestRecorder(t *testing.T) {
	ctx := t.Context()
	rec := newRecorder()
	pc, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	pc.ConnConfig.Tracer = rec
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE recorded (n int)`); err != nil {
		t.Fatal(err)
	}
	send := func(sqls ...string) {
		t.Helper()
		b := &pgx.Batch{}
		for _, s := range sqls {
			b.Queue(s)
		}
		if err := pool.SendBatch(ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
	}
	inTx := func(sqls ...string) {
		t.Helper()
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		for _, rt := range sqls {
			b := &pgx.Batch{}
			for _, s := range strings.Split(rt, ";") {
				b.Queue(s)
			}
			if err := conn.SendBatch(ctx, b).Close(); err != nil {
				t.Fatal(err)
			}
		}
	}

	send(`BEGIN`, `INSERT INTO recorded VALUES (0)`, `COMMIT`) // disarmed
	rec.arm()
	send(`SELECT 1`)
	inTx(`BEGIN;INSERT INTO recorded VALUES (1)`, `ROLLBACK`)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`INSERT INTO recorded VALUES ($1)`, 2)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM recorded WHERE n = $1`, 2).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	txs := rec.disarm()
	send(`BEGIN`, `INSERT INTO recorded VALUES (3)`, `COMMIT`) // disarmed again

	if len(txs) != 1 {
		t.Fatalf("recorded %d transactions, want 1: %v", len(txs), txs)
	}
	var got []string
	for _, rt := range txs[0] {
		var sqls []string
		for _, st := range rt {
			sqls = append(sqls, st.sql)
		}
		got = append(got, strings.Join(sqls, "; "))
	}
	want := []string{"BEGIN; INSERT INTO recorded VALUES ($1)", "SELECT count(*) FROM recorded WHERE n = $1", "COMMIT"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Fatalf("recorded round trips %q, want %q", got, want)
	}
	if args := txs[0][0][1].args; len(args) != 1 || args[0] != 2 {
		t.Errorf("recorded arguments %v, want [2]", args)
	}

	replayed := txs[0].replayable()
	if last := replayed[len(replayed)-1]; last[len(last)-1].sql != "ROLLBACK" || txs[0][2][0].sql != "COMMIT" {
		t.Fatalf("replayable ends in %q (the recording in %q), want ROLLBACK (and COMMIT)", last[len(last)-1].sql, txs[0][2][0].sql)
	}
	for range 3 {
		if err := replay(ctx, pool, replayed); err != nil {
			t.Fatal(err)
		}
	}
	var rows []int
	r, _ := pool.Query(ctx, `SELECT n FROM recorded ORDER BY n`)
	if rows, err = pgx.CollectRows(r, pgx.RowTo[int]); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0] != 0 || rows[1] != 2 || rows[2] != 3 {
		t.Errorf("rows after the replays: %v, want [0 2 3]", rows)
	}
}

// TestRunCosts runs the tool on its own throwaway cluster, which loads
// pg_stat_statements, and expects each RPC's statements, the CPU split and
// a ceiling replayed from recorded RPCs.
func TestRunCosts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own")
	}
	t.Setenv("DATABASE_URL", "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, logs bytes.Buffer
	// 3 s, so that the profile, sampled 100 times a second, catches the
	// load generator's share too on a busy machine (over 1 s it once
	// caught none of it).
	args := []string{"--users", "2", "--hosts", "2", "--concurrency", "2", "--warmup", "300ms", "--duration", "3s"}
	if err := run(ctx, args, &out, &logs); err != nil {
		t.Fatalf("run: %v\noutput:\n%s\nlog:\n%s", err, out.String(), logs.String())
	}
	got := out.String()
	for _, re := range []string{`\d\.\d\d calls  UPDATE hosts SET`, `\d\.\d\d calls  INSERT INTO ledger`,
		`CPU per RPC \(Go, from a CPU profile of the measured load\): Cobble's server \d+ µs, the load generator [1-9]`} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("output does not match %q:\n%s", re, got)
		}
	}
	for _, want := range []string{"PostgreSQL per RPC (pg_stat_statements over the measured load):",
		"(4 hosts' RPCs recorded", "; 0 not recorded)", "ledger check after the PostgreSQL run: OK (20 pairs;"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
