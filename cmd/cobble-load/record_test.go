package main

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Only a batch that begins with BEGIN, as the steady-state RPC's does,
// opens a recorded transaction: the transactions that the server's
// background work begins with a query of its own (River's, the rollups',
// the leaderboards' at start-up) are not the RPC's, even while armed.
// Recording them failed TestSteadyStatePlans on a busy machine, where the
// background work ran during the recorded RPC ("recording: 0 hosts").
func TestRecorderKeepsOnlyTheRPCsTransaction(t *testing.T) {
	r := newRecorder()
	ctx := context.Background()
	rpc, background := new(pgx.Conn), new(pgx.Conn)
	r.arm()
	r.TraceQueryStart(ctx, background, pgx.TraceQueryStartData{SQL: "begin"})
	var b pgx.Batch
	b.Queue("BEGIN")
	b.Queue("SELECT 1")
	r.TraceBatchStart(ctx, rpc, pgx.TraceBatchStartData{Batch: &b})
	r.TraceQueryStart(ctx, background, pgx.TraceQueryStartData{SQL: "UPDATE river_job SET state = 'running'"})
	r.TraceQueryStart(ctx, background, pgx.TraceQueryStartData{SQL: "commit"})
	var c pgx.Batch
	c.Queue("UPDATE hosts SET rpc_seqno = 2")
	c.Queue("COMMIT")
	r.TraceBatchStart(ctx, rpc, pgx.TraceBatchStartData{Batch: &c})
	txs := r.disarm()
	if len(txs) != 1 || len(txs[0]) != 2 || txs[0][1][0].sql != "UPDATE hosts SET rpc_seqno = 2" {
		t.Errorf("recorded %+v, want the RPC's transaction alone", txs)
	}
}
