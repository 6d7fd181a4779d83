package accounting

import (
	"compress/gzip"
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
)

// Building the statistics export: one REPEATABLE READ transaction reads
// the listed volunteers, the teams and the listed computers through
// cursors, a batch at a time, writes each file through gzip into chunks
// of stats_export_chunks, and deletes the exports before the previous one, so that every
// instance serves the new files from the commit on, all four of one
// snapshot, and none ever half of them. Memory stays at a batch of rows,
// gzip's window and one chunk.

// statsBatch is how many rows a cursor gives at a time.
const statsBatch = 1000

// statsLock is the advisory lock that lets one export be built at a
// time. It is a session's, taken before the build's transaction begins,
// so that a build that waited for another reads a snapshot taken after
// that one committed.
const statsLock = `hashtext('cobble_stats_export')`

// Export builds the statistics export as of now and makes it the one
// served, replacing the previous one at once.
func (s *StatsStore) Export(ctx context.Context, now time.Time) (StatsExport, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return StatsExport{}, op("stats export", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+statsLock+`)`); err != nil {
		return StatsExport{}, op("stats export", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+statsLock+`)`)
	var ex StatsExport
	err = pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		ex = StatsExport{BuiltAt: now.UTC().Truncate(time.Second)}
		var through *time.Time
		if err := tx.QueryRow(ctx, `SELECT nullif(rollup_settled_before(), '-infinity') - 1`).Scan(&through); err != nil {
			return err
		}
		if through != nil {
			ex.Through = through.UTC()
		}
		if err := tx.QueryRow(ctx, `INSERT INTO stats_exports (built_at) VALUES ($1) RETURNING id`, ex.BuiltAt).Scan(&ex.ID); err != nil {
			return err
		}
		if err := s.writeFiles(ctx, tx, &ex); err != nil {
			return err
		}
		// The export before this one stays for the downloads under way.
		_, err := tx.Exec(ctx, `DELETE FROM stats_exports WHERE id < (SELECT max(id) FROM stats_exports WHERE id < $1)`, ex.ID)
		return err
	})
	return ex, op("stats export", err)
}

// writeFiles writes the export's files in tx: the records, then
// tables.xml with their counts, as db_dump writes it last.
func (s *StatsStore) writeFiles(ctx context.Context, tx pgx.Tx, ex *StatsExport) error {
	args := pgx.NamedArgs{"through": ex.Through, "now": ex.BuiltAt}
	if ex.Through.IsZero() {
		args["through"] = time.Time{}.AddDate(1, 0, 0) // no settled day yet: no credit counts
	}
	steps := []struct {
		name, root string
		write      func(*boinc.ExportWriter) error
	}{
		{"user.gz", "users", func(w *boinc.ExportWriter) error { return s.writeUsers(ctx, tx, args, w, ex) }},
		{"team.gz", "teams", func(w *boinc.ExportWriter) error { return s.writeTeams(ctx, tx, args, w, ex) }},
		{"host.gz", "hosts", func(w *boinc.ExportWriter) error { return s.writeHosts(ctx, tx, args, w, ex) }},
	}
	for _, st := range steps {
		if err := s.writeGzip(ctx, tx, ex, st.name, st.root, st.write); err != nil {
			return err
		}
	}
	f, err := newChunkWriter(ctx, tx, ex.ID, "tables.xml")
	if err != nil {
		return err
	}
	err = boinc.WriteTables(f, boinc.ExportTables{UpdateTime: ex.BuiltAt.Unix(), NUsersTotal: ex.Users,
		NTeamsTotal: ex.Teams, NHostsTotal: ex.Hosts, TotalCredit: float64(ex.TotalMicro) / 1e6})
	if err != nil {
		return err
	}
	return ex.add(f.Close())
}

// writeGzip writes one compressed file, its records written by records.
func (s *StatsStore) writeGzip(ctx context.Context, tx pgx.Tx, ex *StatsExport, name, root string,
	records func(*boinc.ExportWriter) error) error {
	f, err := newChunkWriter(ctx, tx, ex.ID, name)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.DefaultCompression)
	w := boinc.NewExportWriter(zw, root)
	if err := records(w); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return ex.add(f.Close())
}

// add counts a file's bytes.
func (ex *StatsExport) add(n int64, err error) error {
	ex.Bytes += n
	return err
}

// cursor runs query (with args) as a cursor in tx and calls each for
// every row, statsBatch rows at a time: the rows of a batch are scanned
// first, then handed over, so that each may write to tx.
func cursor[T any](ctx context.Context, tx pgx.Tx, query string, args pgx.NamedArgs, each func(*T) error) error {
	if _, err := tx.Exec(ctx, `DECLARE stats_cursor NO SCROLL CURSOR FOR `+query, args); err != nil {
		return err
	}
	for {
		// Described anew each time: the cursor's columns differ by file.
		rows, _ := tx.Query(ctx, `FETCH FORWARD `+strconv.Itoa(statsBatch)+` FROM stats_cursor`, pgx.QueryExecModeDescribeExec)
		batch, err := pgx.CollectRows(rows, pgx.RowToStructByPos[T])
		if err != nil {
			return err
		}
		for i := range batch {
			if err := each(&batch[i]); err != nil {
				return err
			}
		}
		if len(batch) < statsBatch {
			_, err := tx.Exec(ctx, `CLOSE stats_cursor`)
			return err
		}
	}
}
