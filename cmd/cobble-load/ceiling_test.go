package main

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/testdb"
)

// TestReplaySendsTheRecordedTransaction: the ceiling's replay of a recorded
// steady-state RPC sends exactly what Cobble sent, the same statements with
// the same arguments in the same batches, COMMIT included, and each replay
// adds the recorded RPC's credit to the ledger once more. The replay
// ended in ROLLBACK where the RPC committed until issue 44, which made the
// ceiling slower than Cobble.
func TestReplaySendsTheRecordedTransaction(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cfg := config{dbURL: testdb.NewURL(t), users: 1, hostsPerUser: 2, concurrency: 1, timeout: 30 * time.Second}
	db, err := openDatabase(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer db.close(io.Discard)
	tgt, err := startTarget(ctx, cfg, db, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.close(io.Discard)
	pop, err := createPopulation(ctx, db.pool, tgt.store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := newRPCClient(tgt.urls, 1, cfg.timeout)
	defer c.close()
	var out bytes.Buffer
	if err := baseline(ctx, cfg, c, db, pop, &report{w: &out}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	hosts, rec, err := recordRPCs(ctx, cfg, c, tgt.recorder, pop)
	if err != nil || len(hosts) != len(pop.hosts) {
		t.Fatalf("recording: %s, %v", rec, err)
	}
	h := hosts[0]
	if last := h.recorded[len(h.recorded)-1]; !isWord(last[len(last)-1].sql, "COMMIT") {
		t.Fatalf("the recorded transaction ends in %q, want COMMIT", last[len(last)-1].sql)
	}

	pc, err := pgxpool.ParseConfig(db.url)
	if err != nil {
		t.Fatal(err)
	}
	replayed := newRecorder()
	pc.ConnConfig.Tracer = replayed
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	replayed.arm()
	if err := replay(ctx, pool, h.recorded); err != nil {
		t.Fatalf("replay: %v", err)
	}
	txs := replayed.disarm()
	if len(txs) != 1 {
		t.Fatalf("the replay sent %d committed transactions, want 1", len(txs))
	}
	if !reflect.DeepEqual(txs[0], h.recorded) {
		t.Errorf("the replay sent\n%+v\nwant what Cobble sent:\n%+v", txs[0], h.recorded)
	}

	h.replays = 1
	out.Reset()
	if err := checkLedger(ctx, db.pool, pop, replayedGrowth, &out, "ledger check after one replay"); err != nil {
		t.Errorf("%v:\n%s", err, out.String())
	}
}
