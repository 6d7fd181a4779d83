package accounting

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"io"

	"github.com/jackc/pgx/v5"
)

// The export's files in the database: written a chunk at a time as they
// are made, read back a chunk at a time as they are served.

// chunkWriter stores what is written to it as the chunks of one file of
// an export, in tx, and digests it for the ETag.
type chunkWriter struct {
	ctx  context.Context
	tx   pgx.Tx
	id   int64
	name string
	seq  int
	buf  []byte
	size int64
	sum  hash.Hash
}

// newChunkWriter starts the file name of export id.
func newChunkWriter(ctx context.Context, tx pgx.Tx, id int64, name string) (*chunkWriter, error) {
	_, err := tx.Exec(ctx, `INSERT INTO stats_export_files (export_id, name) VALUES ($1, $2)`, id, name)
	return &chunkWriter{ctx: ctx, tx: tx, id: id, name: name, buf: make([]byte, 0, statsChunk), sum: sha256.New()}, err
}

// Write buffers p and stores each full chunk.
func (c *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), statsChunk-len(c.buf))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) == statsChunk {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// flush stores the buffered chunk.
func (c *chunkWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.tx.Exec(c.ctx, `INSERT INTO stats_export_chunks (export_id, name, seq, data) VALUES ($1, $2, $3, $4)`,
		c.id, c.name, c.seq, c.buf)
	c.sum.Write(c.buf)
	c.size += int64(len(c.buf))
	c.seq++
	c.buf = c.buf[:0]
	return err
}

// Close stores the last chunk and the file's size and ETag, and returns
// the size.
func (c *chunkWriter) Close() (int64, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	etag := `"` + base64.RawURLEncoding.EncodeToString(c.sum.Sum(nil)[:18]) + `"`
	_, err := c.tx.Exec(c.ctx, `UPDATE stats_export_files SET size = $3, etag = $4 WHERE export_id = $1 AND name = $2`,
		c.id, c.name, c.size, etag)
	return c.size, err
}

// ReadStatsFile serves the file name of the newest export: it calls open
// with the file's size, ETag and build time, and writes the file's bytes
// to the writer open returns, unless that is nil (the caller answered
// without the body). Each chunk is read by a query of its own, so a slow
// reader holds no connection; the export before the newest is kept until
// the next one is built, so a download begun before a build ends well.
// ErrNotFound before the first export, or for a name that is not one of
// StatsFileNames.
func (s *StatsStore) ReadStatsFile(ctx context.Context, name string, open func(StatsFile) (io.Writer, error)) error {
	if !ValidStatsFile(name) {
		return op("read stats file", ErrNotFound)
	}
	f := StatsFile{Name: name}
	var id int64
	err := s.pool.QueryRow(ctx, `
		SELECT e.id, e.built_at, f.size, f.etag
		FROM stats_exports e JOIN stats_export_files f ON f.export_id = e.id AND f.name = $1
		ORDER BY e.id DESC LIMIT 1`, name).Scan(&id, &f.BuiltAt, &f.Size, &f.ETag)
	if err != nil {
		return op("read stats file", dbErr(err))
	}
	w, err := open(f)
	if w == nil || err != nil {
		return err
	}
	var data []byte
	for seq, written := 0, int64(0); written < f.Size; seq++ {
		err := s.pool.QueryRow(ctx, `SELECT data FROM stats_export_chunks WHERE export_id = $1 AND name = $2 AND seq = $3`,
			id, name, seq).Scan(&data)
		if err != nil {
			return op("read stats file", err)
		}
		if _, err := w.Write(data); err != nil {
			return op("read stats file", err)
		}
		written += int64(len(data))
	}
	return nil
}

// LastStatsExport returns when the export served was built; the zero
// time before the first.
func (s *StatsStore) LastStatsExport(ctx context.Context) (StatsExport, error) {
	var ex StatsExport
	err := s.pool.QueryRow(ctx, `SELECT id, built_at FROM stats_exports ORDER BY id DESC LIMIT 1`).Scan(&ex.ID, &ex.BuiltAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return StatsExport{}, nil
	}
	return ex, op("last stats export", err)
}
