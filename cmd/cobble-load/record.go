package main

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// The PostgreSQL ceiling replays what Cobble itself sent for real
// steady-state RPCs: a recorder, the tracer of the in-process server's
// pool, keeps the SQL and the arguments of each transaction that a batch
// begins with BEGIN (only the steady-state RPC begins one so) until the
// batch or query that commits it. There is no copy of the RPC's SQL to
// drift from what the RPC runs.

// statement is one statement as Cobble sent it.
type statement struct {
	sql  string
	args []any
}

// roundTrip is what Cobble sent at once: a batch, or a single query.
type roundTrip []statement

// transaction is the round trips of one steady-state RPC, from the batch
// that begins it to the one that commits it.
type transaction []roundTrip

// recorder is a pgx tracer that records transactions while armed.
type recorder struct {
	armed atomic.Bool
	mu    sync.Mutex
	open  map[*pgx.Conn]transaction // begun, not yet committed, by connection
	done  []transaction             // committed, in order
}

func newRecorder() *recorder {
	return &recorder{open: map[*pgx.Conn]transaction{}}
}

// arm starts recording, forgetting what was recorded before.
func (r *recorder) arm() {
	r.mu.Lock()
	clear(r.open)
	r.done = nil
	r.mu.Unlock()
	r.armed.Store(true)
}

// disarm stops recording and returns the committed transactions.
func (r *recorder) disarm() []transaction {
	r.armed.Store(false)
	r.mu.Lock()
	defer r.mu.Unlock()
	done := r.done
	r.done = nil
	clear(r.open)
	return done
}

// TraceBatchStart records a batch's statements.
func (r *recorder) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	if !r.armed.Load() || len(data.Batch.QueuedQueries) == 0 {
		return ctx
	}
	rt := make(roundTrip, len(data.Batch.QueuedQueries))
	for i, q := range data.Batch.QueuedQueries {
		rt[i] = statement{sql: q.SQL, args: q.Arguments}
	}
	r.add(conn, rt)
	return ctx
}

func (r *recorder) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *recorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TraceQueryStart records a single query inside a recorded transaction.
// A BEGIN of its own opens none: the server's background work (River,
// the rollups, the leaderboards) begins its transactions so, and may run
// while an RPC is recorded.
func (r *recorder) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if r.armed.Load() && !isWord(data.SQL, "BEGIN") {
		r.add(conn, roundTrip{{sql: data.SQL, args: data.Args}})
	}
	return ctx
}

func (r *recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// add appends a round trip to conn's open transaction, opening one when
// rt begins with BEGIN and closing it when rt ends with COMMIT; a
// ROLLBACK drops it. Round trips outside a transaction are not recorded.
func (r *recorder) add(conn *pgx.Conn, rt roundTrip) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tx, open := r.open[conn]
	switch {
	case isWord(rt[0].sql, "BEGIN"):
		tx, open = transaction{}, true
	case !open:
		return
	}
	tx = append(tx, rt)
	switch last := rt[len(rt)-1].sql; {
	case isWord(last, "COMMIT"):
		r.done = append(r.done, tx)
		delete(r.open, conn)
	case isWord(last, "ROLLBACK"):
		delete(r.open, conn)
	default:
		r.open[conn] = tx
	}
}

// isWord reports whether sql is the single keyword word.
func isWord(sql, word string) bool {
	return strings.EqualFold(strings.TrimSpace(sql), word)
}

// statements counts tx's statements.
func (tx transaction) statements() int {
	n := 0
	for _, rt := range tx {
		n += len(rt)
	}
	return n
}
